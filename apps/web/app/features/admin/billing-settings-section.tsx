import type { BillingSettings } from '@edgeclub/shared'
import { useQueryClient } from '@tanstack/react-query'
import { useId, useState } from 'react'
import { Button } from '../../components/ui/button'
import { failureText, Notice, type NoticeState } from '../../components/ui/console'
import { Alert, Field, SelectInput } from '../../components/ui/field'
import { Panel } from '../../components/ui/panel'
import { saveBillingSettings, useBillingSettings, usePromoCodes } from './billing-api'
import { promoStatus } from './promo-form'

/** The form, filled from the saved settings (it mounts once they are loaded). */
function OfferForm({ saved, onSaved }: { saved: BillingSettings; onSaved: (notice: NoticeState) => void }) {
  const ids = useId()
  const codes = usePromoCodes()
  const [codeId, setCodeId] = useState(saved.retentionPromoCodeId ?? '')
  const [pause, setPause] = useState(saved.retentionOffersPause)
  const [saving, setSaving] = useState(false)
  const [error, setError] = useState<string | undefined>()
  // Codes that can still be redeemed, and the saved one whatever its state (so it is never hidden).
  const choices = (codes.data?.items ?? []).filter(
    (code) => promoStatus(code) === 'active' || code.id === saved.retentionPromoCodeId,
  )

  return (
    <form
      className="max-w-xl space-y-4"
      noValidate
      aria-label="Offer at cancel"
      onSubmit={async (event) => {
        event.preventDefault()
        setSaving(true)
        setError(undefined)
        try {
          const { message } = await saveBillingSettings({
            retentionPromoCodeId: codeId || null,
            retentionOffersPause: pause,
          })
          onSaved({
            tone: 'success',
            text: `${message}: ${offerSummary(codeId ? choices.find((c) => c.id === codeId)?.code : null, pause)}`,
          })
        } catch (failure) {
          setError(failureText(failure, 'Could not save'))
          onSaved({ tone: 'error', text: failureText(failure, 'Could not save') })
        } finally {
          setSaving(false)
        }
      }}
    >
      <Field
        id={`${ids}-code`}
        label="Retention code"
        error={error}
        hint="Offered before a member confirms cancelling; make it in Promo codes first"
      >
        <SelectInput
          id={`${ids}-code`}
          value={codeId}
          error={error}
          onChange={(event) => setCodeId(event.target.value)}
        >
          <option value="">No code</option>
          {choices.map((code) => (
            <option key={code.id} value={code.id}>
              {code.code} · {code.description}
              {promoStatus(code) === 'active' ? '' : ` (${promoStatus(code)})`}
            </option>
          ))}
        </SelectInput>
      </Field>
      <label className="flex items-center gap-2 text-sm text-slate-200">
        <input
          type="checkbox"
          className="h-4 w-4 accent-emerald-400"
          checked={pause}
          onChange={(event) => setPause(event.target.checked)}
        />
        Offer a pause of 1–3 billing periods instead of cancelling
      </label>
      <Button type="submit" disabled={saving}>
        {saving ? 'Saving...' : 'Save Offer'}
      </Button>
    </form>
  )
}

/** "code WINBACK and a pause", "a pause", "nothing". */
export function offerSummary(code: string | null | undefined, pause: boolean): string {
  if (code && pause) return `members who cancel are offered ${code} or a pause`
  if (code) return `members who cancel are offered ${code}`
  if (pause) return 'members who cancel are offered a pause'
  return 'members who cancel are offered nothing'
}

/** Admin "Billing settings": what a member is offered before cancelling (a code, a pause, or both). */
export function BillingSettingsSection() {
  const queryClient = useQueryClient()
  const settings = useBillingSettings()
  const [notice, setNotice] = useState<NoticeState>(null)
  return (
    <div className="space-y-6">
      <Notice notice={notice} />
      <Panel
        title="Offer at cancel"
        description="Cancelling asks members for a reason; then, if you set one here, they see your offer before they confirm. The reasons are in the Overview."
      >
        {settings.isPending ? <p className="text-sm text-slate-300">Loading settings...</p> : null}
        {settings.isError ? <Alert tone="error">{settings.error.message}</Alert> : null}
        {settings.data ? (
          <OfferForm
            saved={settings.data}
            onSaved={(next) => {
              setNotice(next)
              void queryClient.invalidateQueries({ queryKey: ['admin', 'billing-settings'] })
            }}
          />
        ) : null}
      </Panel>
    </div>
  )
}
