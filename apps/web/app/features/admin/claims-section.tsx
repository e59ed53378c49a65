import { type ClaimsInput, ClaimsSettingsSchema, DEFAULT_CLAIMS, formatRate, paths } from '@edgeclub/shared'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useEffect, useState } from 'react'
import { Link } from 'react-router'
import { Button } from '../../components/ui/button'
import { failureText, Notice, type NoticeState } from '../../components/ui/console'
import { Alert, TextField } from '../../components/ui/field'
import { Panel } from '../../components/ui/panel'
import { act, fetchData } from './admin-api'

const FIELDS = [
  { key: 'members', label: 'Members', hint: 'e.g. 15,000+ (landing and about pages)' },
  { key: 'winRate', label: 'Win rate', hint: 'e.g. 78% (landing, about and register pages)' },
  { key: 'trackRecord', label: 'Track record', hint: 'e.g. 3+ years ("a 78% win rate over 3+ years")' },
  { key: 'aiAccuracy', label: 'AI accuracy', hint: 'e.g. 95% (the price card tile and the about page)' },
] as const

/**
 * The landing and register pages' claims: typed by the owner (the pages' texts by default), or the
 * record's own win rate once enough picks have settled. Warnings say where a typed claim and the
 * verified record disagree.
 */
export function ClaimsSection() {
  const queryClient = useQueryClient()
  const settings = useQuery({
    queryKey: ['admin', 'claims'],
    queryFn: () => fetchData('/admin/claims', ClaimsSettingsSchema),
  })
  const [form, setForm] = useState<ClaimsInput | null>(null)
  const [notice, setNotice] = useState<NoticeState>(null)
  const [errors, setErrors] = useState<Record<string, string>>({})

  useEffect(() => {
    if (settings.data && !form) {
      const { members, aiAccuracy, winRate, trackRecord, showRecordFigures } = settings.data
      setForm({ members, aiAccuracy, winRate, trackRecord, showRecordFigures })
    }
  }, [settings.data, form])

  const save = async (event: FormEvent) => {
    event.preventDefault()
    if (!form) return
    setNotice(null)
    setErrors({})
    try {
      const { message } = await act('/admin/claims', 'PUT', ClaimsSettingsSchema, form)
      setNotice({ tone: 'success', text: message })
      await queryClient.invalidateQueries({ queryKey: ['admin', 'claims'] })
    } catch (error) {
      const fields = (error as { errors?: { field: string; message: string }[] }).errors ?? []
      setErrors(Object.fromEntries(fields.map((item) => [item.field, item.message])))
      setNotice({ tone: 'error', text: failureText(error) })
    }
  }

  const data = settings.data
  return (
    <Panel
      title="Claims"
      description="The figures the landing, about and register pages state. Each defaults to the pages' own text."
    >
      {settings.isError ? <Alert tone="error">{settings.error.message}</Alert> : null}
      {data && data.warnings.length > 0 ? (
        <div
          role="alert"
          className="mb-4 space-y-1 rounded-xl border border-amber-400/50 bg-amber-400/10 p-4"
        >
          <p className="font-semibold text-amber-100">The record does not back what the pages claim</p>
          <ul className="list-disc space-y-1 pl-5 text-sm text-amber-100">
            {data.warnings.map((warning) => (
              <li key={warning}>{warning}</li>
            ))}
          </ul>
        </div>
      ) : null}
      {data ? (
        <p className="mb-4 text-sm text-slate-300">
          The verified record: {data.record.settledPicks} settled picks, win rate{' '}
          {formatRate(data.record.winRate)} of {data.record.decidedPicks} decided.{' '}
          <Link to={paths.record} className="font-semibold text-emerald-300 hover:underline">
            Open the record
          </Link>
        </p>
      ) : null}
      {form ? (
        <form onSubmit={save} className="space-y-4" noValidate>
          <div className="grid gap-4 sm:grid-cols-2">
            {FIELDS.map((field) => (
              <TextField
                key={field.key}
                id={`claim-${field.key}`}
                label={field.label}
                hint={`${field.hint}. Default: ${DEFAULT_CLAIMS[field.key]}`}
                error={errors[field.key]}
                value={form[field.key]}
                maxLength={40}
                onChange={(event) => setForm({ ...form, [field.key]: event.target.value })}
              />
            ))}
          </div>
          <div>
            <label className="flex items-start gap-2 text-sm text-slate-200">
              <input
                type="checkbox"
                className="mt-1"
                checked={form.showRecordFigures}
                disabled={!data?.record.canShowRecord && !form.showRecordFigures}
                aria-describedby="claims-record-hint"
                onChange={(event) => setForm({ ...form, showRecordFigures: event.target.checked })}
              />
              Show the record's own win rate, sample and period instead of the typed win rate and track record
            </label>
            <p id="claims-record-hint" className="mt-1 text-xs text-slate-400">
              {data?.record.canShowRecord
                ? `Now: ${data.shown.fromRecord ? `${data.shown.winRate} over ${data.shown.trackRecord}` : 'off'}`
                : `Possible once ${data?.record.minimumSample ?? 25} picks have settled (${data?.record.settledPicks ?? 0} so far).`}
            </p>
            {errors.showRecordFigures ? (
              <p className="mt-1 text-sm text-rose-300">{errors.showRecordFigures}</p>
            ) : null}
          </div>
          <Button type="submit">Save claims</Button>
          <Notice notice={notice} />
        </form>
      ) : null}
    </Panel>
  )
}
