import { GrantAccessSchema } from '@edgeclub/shared'
import { useId, useState } from 'react'
import { Button } from '../../components/ui/button'
import { day, type RunAction } from '../../components/ui/console'
import { inputClasses } from '../../components/ui/field'
import { zodFieldErrors } from '../../lib/form-errors'
import { grantAccess, useGrantablePlans } from './members-api'

/** Complimentary access: days, on which plan, and a note for the ledger; validated as the API does. */
export function GrantForm({ userId, run }: { userId: string; run: RunAction }) {
  const ids = useId()
  const [days, setDays] = useState('30')
  const [planId, setPlanId] = useState('')
  const [note, setNote] = useState('')
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [busy, setBusy] = useState(false)
  const plans = useGrantablePlans()

  return (
    <form
      className="flex flex-wrap items-end gap-3"
      noValidate
      aria-label="Grant complimentary access"
      onSubmit={async (event) => {
        event.preventDefault()
        const parsed = GrantAccessSchema.safeParse({
          days: days === '' ? undefined : Number(days),
          planId: planId || undefined,
          note: note.trim() || undefined,
        })
        if (!parsed.success) {
          setErrors(zodFieldErrors(parsed.error))
          return
        }
        setBusy(true)
        await run(async () => {
          const { message, data } = await grantAccess(userId, parsed.data)
          return `${message} (${data.plan}, until ${day(data.endDate)})`
        })
        setBusy(false)
        setNote('')
      }}
    >
      <div className="w-32">
        <label htmlFor={`${ids}-days`} className="mb-1 block text-sm text-slate-300">
          Complimentary days
        </label>
        <input
          id={`${ids}-days`}
          className={inputClasses}
          inputMode="numeric"
          value={days}
          aria-invalid={errors.days ? true : undefined}
          aria-describedby={errors.days ? `${ids}-days-error` : undefined}
          onChange={(event) => {
            setDays(event.target.value.replace(/\D/g, ''))
            setErrors({})
          }}
        />
      </div>
      <div className="w-48">
        <label htmlFor={`${ids}-plan`} className="mb-1 block text-sm text-slate-300">
          Plan
        </label>
        <select
          id={`${ids}-plan`}
          className={inputClasses}
          value={planId}
          onChange={(event) => setPlanId(event.target.value)}
        >
          <option value="">Monthly (default)</option>
          {(plans.data?.items ?? []).map((plan) => (
            <option key={plan.id} value={plan.id}>
              {plan.name}
              {plan.isActive ? '' : ' (inactive)'}
            </option>
          ))}
        </select>
      </div>
      <div className="w-full sm:w-64">
        <label htmlFor={`${ids}-note`} className="mb-1 block text-sm text-slate-300">
          Note (optional)
        </label>
        <input
          id={`${ids}-note`}
          className={inputClasses}
          maxLength={300}
          value={note}
          onChange={(event) => setNote(event.target.value)}
        />
      </div>
      <Button type="submit" disabled={busy}>
        {busy ? 'Granting...' : 'Grant access'}
      </Button>
      {errors.days ? (
        <p id={`${ids}-days-error`} className="w-full text-sm text-rose-300">
          {errors.days}
        </p>
      ) : null}
    </form>
  )
}
