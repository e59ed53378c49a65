import { type AdminPlan, describeDiscount, PROMO_AUDIENCES, type PromoCode } from '@edgeclub/shared'
import { useQueryClient } from '@tanstack/react-query'
import { useId, useState } from 'react'
import { Button } from '../../components/ui/button'
import { ConfirmButton, day, failureText, money, Notice, type NoticeState } from '../../components/ui/console'
import { Alert, Field, SelectInput, TextField } from '../../components/ui/field'
import { Panel } from '../../components/ui/panel'
import { useAdminPlans } from './admin-api'
import { createPromoCode, deactivatePromoCode, usePromoCodes } from './billing-api'
import { AUDIENCE_LABELS, blankPromo, checkPromo, type PromoDraft, promoStatus } from './promo-form'

const DURATION_LABELS: Record<PromoDraft['duration'], string> = {
  once: 'The first payment only',
  repeating: 'A number of months',
  forever: 'For as long as they stay',
}

const STATUS_CLASSES = {
  active: 'text-emerald-300',
  expired: 'text-slate-400',
  'used up': 'text-amber-200',
  deactivated: 'text-slate-400',
} as const

/** Create a code, checked with the API's own schema and messages; the server's refusals show on the field. */
function PromoForm({ plans, onCreated }: { plans: AdminPlan[]; onCreated: (message: string) => void }) {
  const ids = useId()
  const [draft, setDraft] = useState<PromoDraft>(blankPromo)
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [failure, setFailure] = useState<string | null>(null)
  const [saving, setSaving] = useState(false)
  const set = <K extends keyof PromoDraft>(key: K, value: PromoDraft[K]) => {
    setDraft((current) => ({ ...current, [key]: value }))
    setErrors((current) => ({ ...current, [key]: '' }))
  }

  const save = async () => {
    setFailure(null)
    const checked = checkPromo(draft)
    if (!checked.ok) {
      setErrors(checked.errors)
      setFailure('Check the highlighted fields.')
      return
    }
    setSaving(true)
    try {
      const { message, data } = await createPromoCode(checked.input)
      setDraft(blankPromo)
      setErrors({})
      onCreated(`${message}: ${data.code} (${data.description})`)
    } catch (error) {
      const fields: Record<string, string> = {}
      for (const item of (error as { errors?: { field: string; message: string }[] }).errors ?? []) {
        const field = item.field === 'expiresAt' ? 'expiresOn' : item.field
        fields[field] ??= item.message
      }
      setErrors(fields)
      setFailure(failureText(error, 'Could not create the code'))
    } finally {
      setSaving(false)
    }
  }

  const onSale = plans.filter((plan) => !plan.archived)
  return (
    <form
      className="space-y-4"
      noValidate
      aria-label="New promo code"
      onSubmit={(event) => {
        event.preventDefault()
        void save()
      }}
    >
      {failure ? <Alert tone="error">{failure}</Alert> : null}
      <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        <TextField
          id={`${ids}-code`}
          label="Code"
          hint="3 to 30 letters, digits, - or _ (members type it in any case)"
          error={errors.code}
          value={draft.code}
          maxLength={30}
          autoCapitalize="characters"
          spellCheck={false}
          onChange={(event) => set('code', event.target.value.toUpperCase())}
        />
        <fieldset className="space-y-1.5">
          <legend className="mb-1.5 text-sm font-medium text-slate-200">Discount</legend>
          {(['percent', 'amount'] as const).map((kind) => (
            <label key={kind} className="flex items-center gap-2 text-sm text-slate-200">
              <input
                type="radio"
                name={`${ids}-kind`}
                className="h-4 w-4 accent-emerald-400"
                checked={draft.kind === kind}
                onChange={() => {
                  set('kind', kind)
                  setErrors({})
                }}
              />
              {kind === 'percent' ? 'Percent off' : 'Amount off'}
            </label>
          ))}
        </fieldset>
        {draft.kind === 'percent' ? (
          <TextField
            id={`${ids}-percent`}
            label="Percent off (%)"
            error={errors.percentOff}
            inputMode="decimal"
            value={draft.percentOff}
            onChange={(event) => set('percentOff', event.target.value)}
          />
        ) : (
          <div className="grid grid-cols-2 gap-3">
            <TextField
              id={`${ids}-amount`}
              label="Amount off"
              error={errors.amountOff}
              inputMode="decimal"
              value={draft.amountOff}
              onChange={(event) => set('amountOff', event.target.value)}
            />
            <TextField
              id={`${ids}-currency`}
              label="Currency"
              error={errors.currency}
              value={draft.currency}
              maxLength={3}
              autoCapitalize="characters"
              onChange={(event) => set('currency', event.target.value.toUpperCase())}
            />
          </div>
        )}
        <div className="grid grid-cols-2 gap-3 lg:grid-cols-1">
          <Field id={`${ids}-duration`} label="Applies to" error={errors.duration}>
            <SelectInput
              id={`${ids}-duration`}
              value={draft.duration}
              error={errors.duration}
              onChange={(event) => set('duration', event.target.value as PromoDraft['duration'])}
            >
              {(['once', 'repeating', 'forever'] as const).map((duration) => (
                <option key={duration} value={duration}>
                  {DURATION_LABELS[duration]}
                </option>
              ))}
            </SelectInput>
          </Field>
          {draft.duration === 'repeating' ? (
            <TextField
              id={`${ids}-months`}
              label="Months"
              error={errors.durationInMonths}
              inputMode="numeric"
              value={draft.durationInMonths}
              onChange={(event) => set('durationInMonths', event.target.value)}
            />
          ) : null}
        </div>
      </div>
      <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        <Field id={`${ids}-audience`} label="Who can use it" error={errors.audience}>
          <SelectInput
            id={`${ids}-audience`}
            value={draft.audience}
            error={errors.audience}
            onChange={(event) => set('audience', event.target.value as PromoDraft['audience'])}
          >
            {PROMO_AUDIENCES.map((audience) => (
              <option key={audience} value={audience}>
                {AUDIENCE_LABELS[audience]}
              </option>
            ))}
          </SelectInput>
        </Field>
        <TextField
          id={`${ids}-expires`}
          label="Expires after (optional)"
          hint="The code works until the end of this day (UTC)"
          error={errors.expiresOn}
          type="date"
          value={draft.expiresOn}
          onChange={(event) => set('expiresOn', event.target.value)}
        />
        <TextField
          id={`${ids}-max`}
          label="Total redemptions (optional)"
          hint="Empty: no limit; each member can use a code once"
          error={errors.maxRedemptions}
          inputMode="numeric"
          value={draft.maxRedemptions}
          onChange={(event) => set('maxRedemptions', event.target.value)}
        />
      </div>
      <fieldset>
        <legend className="mb-1.5 text-sm font-medium text-slate-200">
          Only for these plans (none ticked: every plan)
        </legend>
        <div className="flex flex-wrap gap-x-5 gap-y-2">
          {onSale.map((plan) => (
            <label key={plan.id} className="flex items-center gap-2 text-sm text-slate-200">
              <input
                type="checkbox"
                className="h-4 w-4 accent-emerald-400"
                checked={draft.planIds.includes(plan.id)}
                onChange={(event) =>
                  set(
                    'planIds',
                    event.target.checked
                      ? [...draft.planIds, plan.id]
                      : draft.planIds.filter((id) => id !== plan.id),
                  )
                }
              />
              {plan.name}
            </label>
          ))}
        </div>
        {errors.planIds ? <p className="mt-1.5 text-sm text-rose-300">{errors.planIds}</p> : null}
      </fieldset>
      <Button type="submit" disabled={saving}>
        {saving ? 'Creating...' : 'Create Code'}
      </Button>
    </form>
  )
}

function planNames(code: PromoCode, plans: AdminPlan[]): string {
  if (!code.planIds || code.planIds.length === 0) return 'Every plan'
  return code.planIds.map((id) => plans.find((plan) => plan.id === id)?.name ?? 'a removed plan').join(', ')
}

const revenueText = (code: PromoCode) =>
  code.revenue.length === 0
    ? money(0)
    : code.revenue.map((row) => money(row.amount, row.currency)).join(' + ')

/** The codes: what each gives, to whom, until when, how often it was used and what it brought. */
function PromoTable({
  codes,
  plans,
  onDeactivate,
}: {
  codes: PromoCode[]
  plans: AdminPlan[]
  onDeactivate: (code: PromoCode) => Promise<void>
}) {
  if (codes.length === 0) return <p className="text-sm text-slate-300">No promo codes yet.</p>
  return (
    <div className="overflow-x-auto">
      <table className="w-full min-w-[52rem] text-left text-sm">
        <caption className="sr-only">Promo codes, newest first</caption>
        <thead className="text-slate-400">
          <tr>
            <th scope="col" className="py-2 pr-3 font-medium">
              Code
            </th>
            <th scope="col" className="py-2 pr-3 font-medium">
              Discount
            </th>
            <th scope="col" className="py-2 pr-3 font-medium">
              Who
            </th>
            <th scope="col" className="py-2 pr-3 font-medium">
              Plans
            </th>
            <th scope="col" className="py-2 pr-3 font-medium">
              Expires
            </th>
            <th scope="col" className="py-2 pr-3 font-medium">
              Redemptions
            </th>
            <th scope="col" className="py-2 pr-3 font-medium">
              Revenue
            </th>
            <th scope="col" className="py-2 pr-3 font-medium">
              Status
            </th>
            <th scope="col" className="py-2 font-medium">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-800 text-slate-200">
          {codes.map((code) => {
            const status = promoStatus(code)
            return (
              <tr key={code.id}>
                <th scope="row" className="py-2 pr-3 font-mono font-semibold text-white">
                  {code.code}
                </th>
                <td className="py-2 pr-3">{code.description || describeDiscount(code)}</td>
                <td className="py-2 pr-3">{AUDIENCE_LABELS[code.audience]}</td>
                <td className="py-2 pr-3">{planNames(code, plans)}</td>
                <td className="py-2 pr-3">{code.expiresAt ? day(code.expiresAt) : 'Never'}</td>
                <td className="py-2 pr-3">
                  {code.redemptions}
                  {code.maxRedemptions !== null ? ` of ${code.maxRedemptions}` : ''}
                </td>
                <td className="py-2 pr-3">{revenueText(code)}</td>
                <td className={`py-2 pr-3 ${STATUS_CLASSES[status]}`}>{status}</td>
                <td className="py-2">
                  {code.active ? (
                    <ConfirmButton
                      label="Deactivate"
                      context={code.code}
                      confirmLabel="Yes, deactivate"
                      question={`Deactivate ${code.code}? Nobody can use it from now on; what was redeemed stays.`}
                      onConfirm={() => onDeactivate(code)}
                    />
                  ) : null}
                </td>
              </tr>
            )
          })}
        </tbody>
      </table>
    </div>
  )
}

/** Admin "Promo codes": make codes, see what each brought, and stop one. */
export function PromoCodesSection() {
  const queryClient = useQueryClient()
  const codes = usePromoCodes()
  const plans = useAdminPlans()
  const [notice, setNotice] = useState<NoticeState>(null)
  const all = plans.data?.items ?? []
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['admin'] })

  return (
    <div className="space-y-6">
      <Notice notice={notice} />
      <Panel
        title="New promo code"
        description="Card codes become Stripe coupons; crypto checkouts get the same discount from the server."
      >
        <PromoForm
          plans={all}
          onCreated={(text) => {
            setNotice({ tone: 'success', text })
            void refresh()
          }}
        />
      </Panel>
      <Panel title="Promo codes">
        {codes.isPending ? <p className="text-sm text-slate-300">Loading codes...</p> : null}
        {codes.isError ? <Alert tone="error">{codes.error.message}</Alert> : null}
        {codes.data ? (
          <PromoTable
            codes={codes.data.items}
            plans={all}
            onDeactivate={async (code) => {
              setNotice(null)
              try {
                const { message, data } = await deactivatePromoCode(code.id)
                setNotice({ tone: 'success', text: `${message}: ${data.code}` })
              } catch (error) {
                setNotice({ tone: 'error', text: failureText(error) })
              }
              await refresh()
            }}
          />
        ) : null}
      </Panel>
    </div>
  )
}
