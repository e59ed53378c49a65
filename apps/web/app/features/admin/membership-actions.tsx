import { FreeDaysSchema, PAUSE_PERIODS } from '@edgeclub/shared'
import { useId, useState } from 'react'
import { Button } from '../../components/ui/button'
import { ConfirmButton, day, type RunAction } from '../../components/ui/console'
import { inputClasses } from '../../components/ui/field'
import { addFreeDays, pauseMember } from './billing-api'

/**
 * The owner's levers on one member's plan: pause a renewing card plan for 1–3 billing periods (from
 * the end of the paid one), and free days (a card plan is charged that much later; anyone else gets
 * complimentary access). Both are audited; the server says when a member's plan cannot be paused.
 */
export function MembershipActions({ userId, run }: { userId: string; run: RunAction }) {
  const ids = useId()
  const [periods, setPeriods] = useState<(typeof PAUSE_PERIODS)[number]>(1)
  const [days, setDays] = useState('7')
  const [error, setError] = useState<string | undefined>()
  const [busy, setBusy] = useState(false)

  return (
    <div className="flex flex-wrap items-end gap-6">
      <div className="flex flex-wrap items-end gap-3">
        <div className="w-48">
          <label htmlFor={`${ids}-periods`} className="mb-1 block text-sm text-slate-300">
            Pause for
          </label>
          <select
            id={`${ids}-periods`}
            className={inputClasses}
            value={periods}
            onChange={(event) => setPeriods(Number(event.target.value) as typeof periods)}
          >
            {PAUSE_PERIODS.map((count) => (
              <option key={count} value={count}>
                {count} billing {count === 1 ? 'period' : 'periods'}
              </option>
            ))}
          </select>
        </div>
        <ConfirmButton
          label="Pause member"
          confirmLabel="Yes, pause"
          question={`Pause their plan for ${periods} billing ${periods === 1 ? 'period' : 'periods'}? No charge and no access from the end of the paid period until it resumes.`}
          onConfirm={() =>
            run(async () => {
              const { message, data } = await pauseMember(userId, periods)
              return `${message}: access until ${day(data.accessUntil)}, resumes ${day(data.resumesAt)}`
            })
          }
        />
      </div>
      <form
        className="flex flex-wrap items-end gap-3"
        noValidate
        aria-label="Add free days"
        onSubmit={async (event) => {
          event.preventDefault()
          const parsed = FreeDaysSchema.safeParse({ days: days === '' ? undefined : Number(days) })
          if (!parsed.success) {
            setError(parsed.error.issues[0]?.message)
            return
          }
          setBusy(true)
          await run(async () => {
            const { message, data } = await addFreeDays(userId, parsed.data.days)
            return `${message}: next charge or end of access ${day(data.endDate)}`
          })
          setBusy(false)
        }}
      >
        <div className="w-32">
          <label htmlFor={`${ids}-days`} className="mb-1 block text-sm text-slate-300">
            Free days
          </label>
          <input
            id={`${ids}-days`}
            className={inputClasses}
            inputMode="numeric"
            value={days}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? `${ids}-days-error` : `${ids}-days-hint`}
            onChange={(event) => {
              setDays(event.target.value.replace(/\D/g, ''))
              setError(undefined)
            }}
          />
        </div>
        <Button type="submit" variant="secondary" disabled={busy}>
          {busy ? 'Adding...' : 'Add free days'}
        </Button>
        {error ? (
          <p id={`${ids}-days-error`} className="w-full text-sm text-rose-300">
            {error}
          </p>
        ) : (
          <p id={`${ids}-days-hint`} className="w-full text-xs text-slate-400">
            A card plan is charged that many days later; without one, they get complimentary access.
          </p>
        )}
      </form>
    </div>
  )
}
