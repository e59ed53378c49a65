import { ANALYSIS_MAX, DIRECTIONS, formatNumber, MARKETS, SPORTS } from '@edgeclub/shared'
import { type ReactNode, useState } from 'react'
import { Button } from '../../components/ui/button'
import type { RunAction } from '../../components/ui/console'
import { Field, SelectInput, TextArea, TextField } from '../../components/ui/field'
import { serverFieldErrors } from '../../lib/form-errors'
import { americanOdds, emptySignalForm, readSignalForm, type SignalFormFields } from './signal-form'
import { publishSignal } from './signals-api'

const SPORT_LABELS: Record<string, string> = { soccer: 'Soccer', other: 'Other' }
const capitalized = (value: string) => `${value[0]?.toUpperCase() ?? ''}${value.slice(1)}`

function Grid({ children }: { children: ReactNode }) {
  return <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">{children}</div>
}

/**
 * Publishes a sports pick or a trading signal. The form checks what the server checks (the shared
 * schemas, in the same words) before it sends anything; odds may be typed as decimal or American
 * odds, and American odds are converted with the shared rule before they are committed to.
 */
export function PublishSignalForm({ run }: { run: RunAction }) {
  const [form, setForm] = useState<SignalFormFields>(emptySignalForm)
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [busy, setBusy] = useState(false)

  const set = (field: keyof SignalFormFields) => (event: { target: { value: string } }) => {
    const value = event.target.value
    setForm((current) => ({ ...current, [field]: value }))
    setErrors((current) => {
      const { [field]: _gone, ...rest } = current
      return rest
    })
  }
  const input = (field: keyof SignalFormFields) => ({
    value: form[field],
    onChange: set(field),
    error: errors[field],
  })

  const converted = form.oddsFormat === 'american' ? americanOdds(form.odds) : null
  const pick = form.kind === 'pick'

  return (
    <form
      noValidate
      aria-label="Publish a signal"
      className="space-y-5"
      onSubmit={async (event) => {
        event.preventDefault()
        const read = readSignalForm(form, new Date())
        if (!read.ok) {
          setErrors(read.errors)
          return
        }
        setBusy(true)
        let published = false
        await run(async () => {
          try {
            const { message, data } = await publishSignal(read.input)
            published = true
            return `${message}: ${data.kind === 'pick' ? 'pick' : 'trading signal'} on ${data.category}, commitment ${data.commitment.slice(0, 12)}…`
          } catch (error) {
            setErrors(serverFieldErrors((error as { errors?: { field: string; message: string }[] }).errors))
            throw error
          }
        })
        setBusy(false)
        // The next one is often of the same kind and sport; the rest starts afresh.
        if (published) setForm({ ...emptySignalForm, kind: form.kind, sport: form.sport })
      }}
    >
      <fieldset>
        <legend className="mb-2 text-sm font-medium text-slate-200">What are you publishing?</legend>
        <div className="flex flex-wrap gap-4">
          {(
            [
              ['pick', 'Sports pick'],
              ['signal', 'Trading signal'],
            ] as const
          ).map(([kind, label]) => (
            <label key={kind} className="flex items-center gap-2 text-sm text-slate-200">
              <input
                type="radio"
                name="signal-kind"
                value={kind}
                checked={form.kind === kind}
                onChange={() => {
                  setForm((current) => ({ ...current, kind }))
                  setErrors({})
                }}
                className="h-4 w-4 accent-emerald-400"
              />
              {label}
            </label>
          ))}
        </div>
      </fieldset>

      {pick ? (
        <Grid>
          <Field id="signal-sport" label="Sport" error={errors.sport}>
            <SelectInput id="signal-sport" {...input('sport')}>
              <option value="">Choose a sport</option>
              {SPORTS.map((sport) => (
                <option key={sport} value={sport}>
                  {SPORT_LABELS[sport] ?? sport}
                </option>
              ))}
            </SelectInput>
          </Field>
          <TextField id="signal-league" label="League (optional)" maxLength={60} {...input('league')} />
          <TextField
            id="signal-event"
            label="Event"
            maxLength={200}
            placeholder="Chiefs vs Bills"
            {...input('event')}
          />
          <TextField
            id="signal-starts-at"
            label="Starts at"
            type="datetime-local"
            step={1}
            hint="Your local time. It must be in the future."
            {...input('startsAt')}
          />
          <Field id="signal-market" label="Market" error={errors.market}>
            <SelectInput id="signal-market" {...input('market')}>
              <option value="">Choose a market</option>
              {MARKETS.map((market) => (
                <option key={market} value={market}>
                  {capitalized(market)}
                </option>
              ))}
            </SelectInput>
          </Field>
          <TextField
            id="signal-selection"
            label="Selection"
            maxLength={200}
            placeholder="Chiefs -3.5"
            {...input('selection')}
          />
          <Field id="signal-odds-format" label="Odds format">
            <SelectInput id="signal-odds-format" value={form.oddsFormat} onChange={set('oddsFormat')}>
              <option value="decimal">Decimal (1.91)</option>
              <option value="american">American (-110)</option>
            </SelectInput>
          </Field>
          <TextField
            id="signal-odds"
            label="Odds"
            inputMode="decimal"
            placeholder={form.oddsFormat === 'american' ? '-110' : '1.91'}
            hint={
              form.oddsFormat === 'american'
                ? converted === null
                  ? 'American odds such as +150 or -110; stored as decimal odds.'
                  : `Stored as decimal odds ${converted.toFixed(2)}.`
                : 'Decimal odds between 1.01 and 1000.'
            }
            {...input('odds')}
          />
          <TextField
            id="signal-stake"
            label="Stake (units)"
            inputMode="decimal"
            hint="Between 0.1 and 10 units."
            {...input('stake')}
          />
        </Grid>
      ) : (
        <Grid>
          <TextField
            id="signal-instrument"
            label="Instrument"
            maxLength={20}
            placeholder="BTC, ETH, SOL or a ticker"
            hint="BTC, ETH and SOL settle by themselves from the price feed."
            {...input('instrument')}
          />
          <Field id="signal-direction" label="Direction" error={errors.direction}>
            <SelectInput id="signal-direction" {...input('direction')}>
              {DIRECTIONS.map((direction) => (
                <option key={direction} value={direction}>
                  {capitalized(direction)}
                </option>
              ))}
            </SelectInput>
          </Field>
          <TextField id="signal-entry" label="Entry" inputMode="decimal" {...input('entry')} />
          <TextField id="signal-target" label="Target" inputMode="decimal" {...input('target')} />
          <TextField
            id="signal-stop"
            label="Stop"
            inputMode="decimal"
            hint={form.direction === 'short' ? 'Above the entry for a short.' : 'Below the entry for a long.'}
            {...input('stop')}
          />
          <TextField
            id="signal-expires-at"
            label="Expires at"
            type="datetime-local"
            step={1}
            hint="Your local time. It must be in the future."
            {...input('expiresAt')}
          />
          <TextField
            id="signal-stake"
            label="Stake (units)"
            inputMode="decimal"
            hint="Units of risk, 1 unless you say otherwise."
            {...input('stake')}
          />
        </Grid>
      )}

      <Field
        id="signal-analysis"
        label="Analysis (optional)"
        error={errors.analysis}
        hint={`${formatNumber(form.analysis.length)} of ${formatNumber(ANALYSIS_MAX)} characters. Members see it with the ${pick ? 'pick' : 'signal'}.`}
      >
        <TextArea
          id="signal-analysis"
          rows={4}
          maxLength={ANALYSIS_MAX}
          value={form.analysis}
          onChange={set('analysis')}
          error={errors.analysis}
          hasHint
        />
      </Field>

      <div className="flex flex-wrap items-center gap-4">
        <Button type="submit" disabled={busy}>
          {busy ? 'Publishing...' : pick ? 'Publish pick' : 'Publish signal'}
        </Button>
        <p className="text-sm text-slate-400">
          Once published, nothing in it can change: a mistake is corrected by voiding it and publishing a new
          one.
        </p>
      </div>
    </form>
  )
}
