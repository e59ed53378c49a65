import {
  type AdminPlan,
  AdminPlanSchema,
  ALL_PLACES,
  PLAN_INTERVALS,
  type Plan,
  PlanInputSchema,
  type PlanPlaces,
  PlanRemovalSchema,
  sortPlansBySlug,
  TRIAL_DAYS_MAX,
  trialText,
  yearlySaving,
} from '@edgeclub/shared'
import { useEffect, useId, useState } from 'react'
import { Button } from '../../components/ui/button'
import { ConfirmButton, failureText, money, Notice, useConsoleAction } from '../../components/ui/console'
import { Alert, Field, SelectInput, TextArea, TextField, TextInput } from '../../components/ui/field'
import { Panel } from '../../components/ui/panel'
import { PlanCard } from '../../components/ui/plan-card'
import { serverFieldErrors, zodFieldErrors } from '../../lib/form-errors'
import { act, useAdminPlans } from './admin-api'
import { PlanPlacesField } from './plan-places-field'

interface Draft {
  name: string
  slug: string
  description: string
  price: string
  currency: string
  interval: (typeof PLAN_INTERVALS)[number]
  intervalCount: string
  features: string
  isPopular: boolean
  sortOrder: string
  isActive: boolean
  /** Free days before the first charge ('0': none); a lifetime plan has none. */
  trialDays: string
  places: PlanPlaces
}

const blank: Draft = {
  name: '',
  slug: '',
  description: '',
  price: '',
  currency: 'USD',
  interval: 'month',
  intervalCount: '1',
  features: '',
  isPopular: false,
  sortOrder: '10',
  isActive: true,
  trialDays: '0',
  places: ALL_PLACES,
}

const toDraft = (plan: AdminPlan): Draft => ({
  name: plan.name,
  slug: plan.slug,
  description: plan.description,
  price: plan.price.toFixed(2),
  currency: plan.currency,
  interval: plan.interval,
  intervalCount: String(plan.intervalCount),
  features: plan.features.join('\n'),
  isPopular: plan.isPopular,
  sortOrder: String(plan.sortOrder),
  isActive: plan.isActive,
  trialDays: String(plan.trialDays),
  places: plan.places,
})

/** '' stays undefined so the schema says "required" rather than "must be at least". */
const numberOrUndefined = (text: string) => (text.trim() === '' ? undefined : Number(text))

const toInput = (draft: Draft) => ({
  name: draft.name,
  slug: draft.slug,
  description: draft.description,
  price: numberOrUndefined(draft.price),
  currency: draft.currency,
  interval: draft.interval,
  intervalCount: draft.interval === 'lifetime' ? 1 : numberOrUndefined(draft.intervalCount),
  features: draft.features
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean),
  isPopular: draft.isPopular,
  sortOrder: numberOrUndefined(draft.sortOrder),
  isActive: draft.isActive,
  trialDays: draft.interval === 'lifetime' ? 0 : numberOrUndefined(draft.trialDays),
  places: draft.places,
})

const intervalLabel = (plan: Pick<Plan, 'interval' | 'intervalCount'>) =>
  plan.interval === 'lifetime'
    ? 'lifetime'
    : plan.intervalCount === 1
      ? `every ${plan.interval}`
      : `every ${plan.intervalCount} ${plan.interval}s`

/** Where the draft's card would sit on /pricing, among the plans on sale now. */
function pricingPlace(preview: Plan, plans: AdminPlan[]): string {
  if (!preview.isActive) return 'Inactive: not shown on /pricing.'
  const onSale = plans.filter((plan) => plan.isActive && !plan.archived && plan.id !== preview.id)
  const order = sortPlansBySlug([...onSale, preview])
  return `Card ${order.indexOf(preview) + 1} of ${order.length} on /pricing (weekly, monthly, yearly, lifetime, then the others by sort order).`
}

function PlanEditor({
  plan,
  plans,
  onDone,
}: {
  plan: AdminPlan | null
  plans: AdminPlan[]
  onDone: (message: string) => void
}) {
  const [draft, setDraft] = useState<Draft>(plan ? toDraft(plan) : blank)
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [failure, setFailure] = useState<string | null>(null)
  const [saving, setSaving] = useState(false)
  const ids = useId()
  // The editor replaces the list: the keyboard starts at its first field, not at the top of the page.
  useEffect(() => {
    document.getElementById(`${ids}-name`)?.focus()
  }, [ids])

  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => {
    setDraft((current) => ({ ...current, [key]: value }))
    setErrors((current) => ({ ...current, [key]: '' }))
  }
  // The same schema (and messages) as POST /admin/plans: the card previews only what would be accepted.
  const parsed = PlanInputSchema.safeParse(toInput(draft))
  const preview: Plan | null = parsed.success
    ? { ...parsed.data, id: plan?.id ?? 'preview', _id: plan?.id ?? 'preview' }
    : null
  const monthly =
    draft.slug === 'monthly'
      ? undefined
      : plans.find((item) => item.slug === 'monthly' && item.isActive && !item.archived)

  const save = async () => {
    setFailure(null)
    if (!parsed.success) {
      setErrors(zodFieldErrors(parsed.error))
      setFailure('Check the highlighted fields.')
      return
    }
    setSaving(true)
    try {
      const { message, data } = plan
        ? await act(`/admin/plans/${plan.id}`, 'PUT', AdminPlanSchema, parsed.data)
        : await act('/admin/plans', 'POST', AdminPlanSchema, parsed.data)
      onDone(`${message}: ${data.name}`)
    } catch (error) {
      setErrors(serverFieldErrors((error as { errors?: { field: string; message: string }[] }).errors))
      setFailure(failureText(error, 'Could not save the plan'))
    } finally {
      setSaving(false)
    }
  }

  return (
    <Panel title={plan ? `Edit ${plan.name}` : 'New plan'}>
      <div className="grid gap-6 lg:grid-cols-2">
        <form
          className="space-y-4"
          noValidate
          onSubmit={(event) => {
            event.preventDefault()
            void save()
          }}
        >
          {failure ? <Alert tone="error">{failure}</Alert> : null}
          <div className="grid gap-4 sm:grid-cols-2">
            <TextField
              id={`${ids}-name`}
              label="Name"
              error={errors.name}
              value={draft.name}
              maxLength={60}
              onChange={(e) => set('name', e.target.value)}
            />
            <Field
              id={`${ids}-slug`}
              label="Slug"
              error={errors.slug}
              hint="weekly, monthly, yearly and lifetime have fixed places; others go last"
            >
              <TextInput
                id={`${ids}-slug`}
                value={draft.slug}
                maxLength={40}
                error={errors.slug}
                hasHint
                autoCapitalize="none"
                spellCheck={false}
                onChange={(e) => set('slug', e.target.value)}
              />
            </Field>
          </div>
          <Field id={`${ids}-description`} label="Description" error={errors.description}>
            <TextArea
              id={`${ids}-description`}
              rows={2}
              maxLength={500}
              value={draft.description}
              error={errors.description}
              onChange={(e) => set('description', e.target.value)}
            />
          </Field>
          <div className="grid grid-cols-2 gap-4 sm:grid-cols-4">
            <TextField
              id={`${ids}-price`}
              label="Price"
              error={errors.price}
              inputMode="decimal"
              value={draft.price}
              onChange={(e) => set('price', e.target.value)}
            />
            <TextField
              id={`${ids}-currency`}
              label="Currency"
              error={errors.currency}
              value={draft.currency}
              maxLength={3}
              autoCapitalize="characters"
              onChange={(e) => set('currency', e.target.value.toUpperCase())}
            />
            <Field id={`${ids}-interval`} label="Interval" error={errors.interval}>
              <SelectInput
                id={`${ids}-interval`}
                value={draft.interval}
                error={errors.interval}
                onChange={(e) => {
                  set('interval', e.target.value as Draft['interval'])
                  // A lifetime plan has no trial: an earlier trial error no longer applies.
                  setErrors((current) => ({ ...current, trialDays: '' }))
                }}
              >
                {PLAN_INTERVALS.map((interval) => (
                  <option key={interval} value={interval}>
                    {interval}
                  </option>
                ))}
              </SelectInput>
            </Field>
            <TextField
              id={`${ids}-interval-count`}
              label="Every"
              error={errors.intervalCount}
              inputMode="numeric"
              value={draft.interval === 'lifetime' ? '1' : draft.intervalCount}
              disabled={draft.interval === 'lifetime'}
              onChange={(e) => set('intervalCount', e.target.value)}
            />
          </div>
          <TextField
            id={`${ids}-trial`}
            label="Free trial (days)"
            hint={
              draft.interval === 'lifetime'
                ? 'A lifetime plan has no trial'
                : `0: none. Up to ${TRIAL_DAYS_MAX} days; the card is saved at checkout and charged when the trial ends; one trial per member and per card`
            }
            error={errors.trialDays}
            inputMode="numeric"
            value={draft.interval === 'lifetime' ? '0' : draft.trialDays}
            disabled={draft.interval === 'lifetime'}
            onChange={(e) => set('trialDays', e.target.value)}
          />
          <Field
            id={`${ids}-features`}
            label="Features (one per line)"
            error={errors.features}
            hint="Up to 20 lines of 120 characters"
          >
            <TextArea
              id={`${ids}-features`}
              rows={5}
              value={draft.features}
              error={errors.features}
              hasHint
              onChange={(e) => set('features', e.target.value)}
            />
          </Field>
          <div className="grid gap-4 sm:grid-cols-3">
            <TextField
              id={`${ids}-sort`}
              label="Sort order"
              error={errors.sortOrder}
              inputMode="numeric"
              value={draft.sortOrder}
              onChange={(e) => set('sortOrder', e.target.value)}
            />
            <label className="flex items-center gap-2 text-sm text-slate-200 sm:mt-7">
              <input
                type="checkbox"
                className="h-4 w-4 accent-emerald-400"
                checked={draft.isPopular}
                onChange={(e) => set('isPopular', e.target.checked)}
              />
              Most popular
            </label>
            <label className="flex items-center gap-2 text-sm text-slate-200 sm:mt-7">
              <input
                type="checkbox"
                className="h-4 w-4 accent-emerald-400"
                checked={draft.isActive}
                onChange={(e) => set('isActive', e.target.checked)}
              />
              Active (on sale)
            </label>
          </div>
          <PlanPlacesField
            value={draft.places}
            error={errors.places}
            onChange={(places) => set('places', places)}
          />
          {plan && plan.subscriberCount > 0 && Number(draft.price) !== plan.price ? (
            <Alert tone="info">
              A new price applies to new purchases; the {plan.subscriberCount} current subscribers keep
              theirs.
            </Alert>
          ) : null}
          <div className="flex flex-wrap gap-3">
            <Button type="submit" disabled={saving}>
              {saving ? 'Saving...' : plan ? 'Save Plan' : 'Create Plan'}
            </Button>
            <Button variant="ghost" onClick={() => onDone('')} disabled={saving}>
              Cancel
            </Button>
          </div>
        </form>
        <section aria-labelledby={`${ids}-preview`}>
          <h3 id={`${ids}-preview`} className="mb-2 text-sm font-semibold text-slate-300">
            Preview on the pricing page
          </h3>
          {preview ? (
            <div className="space-y-3">
              <p className="text-sm text-slate-400">{pricingPlace(preview, plans)}</p>
              <div className="max-w-sm">
                <PlanCard
                  plan={preview}
                  saving={preview.slug === 'yearly' ? yearlySaving(preview, monthly) : null}
                  onChoose={() => {}}
                  disabled
                />
              </div>
            </div>
          ) : (
            <p className="text-sm text-slate-400">The card shows here once the plan is valid.</p>
          )}
        </section>
      </div>
    </Panel>
  )
}

export function PlansSection() {
  const [editing, setEditing] = useState<AdminPlan | 'new' | null>(null)
  const [showArchived, setShowArchived] = useState(false)
  const { notice, setNotice, run, reload } = useConsoleAction(['admin'])
  const plans = useAdminPlans()

  const all = plans.data?.items ?? []
  // The order of the pricing page, so the list reads like the page it controls.
  const listed = sortPlansBySlug(all.filter((plan) => showArchived || !plan.archived))
  const archivedCount = all.filter((plan) => plan.archived).length

  if (editing) {
    return (
      <PlanEditor
        plan={editing === 'new' ? null : editing}
        plans={all}
        onDone={(message) => {
          setEditing(null)
          setNotice(message ? { tone: 'success', text: message } : null)
          void reload()
        }}
      />
    )
  }
  return (
    <div className="space-y-4">
      <Notice notice={notice} />
      <Panel title="All plans" actions={<Button onClick={() => setEditing('new')}>New Plan</Button>}>
        {plans.isPending ? <p className="text-sm text-slate-300">Loading plans...</p> : null}
        {plans.isError ? <Alert tone="error">{plans.error.message}</Alert> : null}
        <label className="mb-2 flex items-center gap-2 text-sm text-slate-300">
          <input
            type="checkbox"
            className="h-4 w-4 accent-emerald-400"
            checked={showArchived}
            onChange={(event) => setShowArchived(event.target.checked)}
          />
          Show archived plans ({archivedCount})
        </label>
        <ul className="divide-y divide-slate-800" aria-label="Plans, in pricing page order">
          {listed.map((plan) => (
            <li key={plan.id} className="flex flex-wrap items-center justify-between gap-3 py-3">
              <div className="min-w-0">
                <p className="font-semibold text-white">
                  {plan.name} <span className="text-sm font-normal text-slate-400">({plan.slug})</span>
                  {plan.isPopular ? (
                    <span className="ml-2 rounded bg-emerald-400/15 px-1.5 py-0.5 text-xs text-emerald-200">
                      most popular
                    </span>
                  ) : null}
                </p>
                <p className="text-sm text-slate-300">
                  {money(plan.price, plan.currency)} · {intervalLabel(plan)} ·{' '}
                  {trialText(plan) ? `${trialText(plan)} · ` : ''}
                  <span
                    className={
                      plan.archived ? 'text-slate-400' : plan.isActive ? 'text-emerald-300' : 'text-amber-200'
                    }
                  >
                    {plan.archived ? 'archived' : plan.isActive ? 'on sale' : 'inactive'}
                  </span>{' '}
                  · {plan.subscriberCount} {plan.subscriberCount === 1 ? 'subscriber' : 'subscribers'}
                </p>
              </div>
              {plan.archived ? null : (
                <div className="flex flex-wrap items-start gap-2">
                  <Button variant="secondary" className="px-3 py-1.5" onClick={() => setEditing(plan)}>
                    Edit<span className="sr-only"> {plan.name}</span>
                  </Button>
                  <Button
                    variant="secondary"
                    className="px-3 py-1.5"
                    onClick={() =>
                      run(
                        async () =>
                          (await act(`/admin/plans/${plan.id}/toggle`, 'POST', AdminPlanSchema)).message,
                      )
                    }
                  >
                    {plan.isActive ? 'Deactivate' : 'Activate'}
                    <span className="sr-only"> {plan.name}</span>
                  </Button>
                  <ConfirmButton
                    label="Archive"
                    context={plan.name}
                    confirmLabel="Yes, archive"
                    question={
                      plan.subscriberCount > 0
                        ? `Archive ${plan.name}? It leaves the pricing page for good; its ${plan.subscriberCount} subscribers keep their access.`
                        : `Archive ${plan.name}? It leaves the pricing page for good (a plan nobody ever bought is deleted).`
                    }
                    variant="danger"
                    onConfirm={() =>
                      run(
                        async () =>
                          (await act(`/admin/plans/${plan.id}`, 'DELETE', PlanRemovalSchema)).message,
                      )
                    }
                  />
                </div>
              )}
            </li>
          ))}
        </ul>
      </Panel>
    </div>
  )
}
