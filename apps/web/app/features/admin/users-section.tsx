import { GrantAccessSchema } from '@edgeclub/shared'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useId, useState } from 'react'
import { Link, useSearchParams } from 'react-router'
import { Button } from '../../components/ui/button'
import { Alert, inputClasses } from '../../components/ui/field'
import { zodFieldErrors } from '../../lib/form-errors'
import { useSession } from '../../lib/use-session'
import { act, fetchData, fetchList } from './admin-api'
import {
  ConfirmButton,
  day,
  failureText,
  moment,
  money,
  Notice,
  type NoticeState,
  Panel,
  words,
} from './admin-ui'
import { DataTable } from './data-table'
import { providerLabel } from './lists-section'
import { isRefundable, RefundButton } from './refund-button'

interface AdminUser {
  id: string
  email: string
  firstName: string
  lastName: string
  discordUsername: string
  role: 'member' | 'admin'
  disabled: boolean
  hasAccess: boolean
  createdAt: string
  discord: { state: string; roleGranted: boolean }
}

interface UserDetail {
  user: AdminUser
  discord: {
    state: string
    roleGranted: boolean
    discordUserId: string | null
    lastSyncedAt: string | null
    lastError: string | null
    banned: boolean
  }
  subscriptions: {
    id: string
    planId: { name: string }
    status: string
    provider: string
    startDate: string
    endDate: string | null
    cancelAtPeriodEnd: boolean
  }[]
  payments: {
    id: string
    kind: string
    planId: { name: string } | null
    amount: number
    amountRefunded: number
    currency: string
    status: string
    provider: string
    createdAt: string
    message: string | null
  }[]
}

interface AuditEntry {
  id: string
  actor: { email: string } | null
  action: string
  outcome: 'success' | 'failure'
  details: Record<string, unknown>
  createdAt: string
}

const linkClasses = 'font-medium text-emerald-300 underline-offset-2 hover:underline'
const fullName = (user: AdminUser) => `${user.firstName} ${user.lastName}`.trim()

/** The list's address with one member opened (or closed): the list's search and page survive. */
function useMemberLinks() {
  const [params] = useSearchParams()
  const withUser = (userId: string | null) => {
    const next = new URLSearchParams(params)
    next.set('section', 'users')
    if (userId) next.set('user', userId)
    else next.delete('user')
    return `?${next.toString()}`
  }
  return withUser
}

export function UsersSection() {
  const withUser = useMemberLinks()
  return (
    <DataTable<AdminUser>
      title="Members"
      path="/admin/users"
      searchLabel="Search email, name, Discord or plan"
      defaultSort="createdAt"
      exportName="members"
      filters={[
        {
          name: 'role',
          label: 'Role',
          options: [
            { value: 'member', label: 'Members' },
            { value: 'admin', label: 'Admins' },
          ],
        },
      ]}
      columns={[
        {
          header: 'Email',
          sortKey: 'email',
          // The member's page is one tap away in the first column, also on a phone.
          render: (u) => (
            <Link to={withUser(u.id)} className={`${linkClasses} break-all`}>
              {u.email}
            </Link>
          ),
        },
        { header: 'Name', sortKey: 'name', render: (u) => fullName(u) || '—' },
        {
          header: 'Discord',
          render: (u) => (
            <>
              {u.discordUsername || '—'}
              <span className="block text-xs text-slate-400">
                {words(u.discord.state)}
                {u.discord.roleGranted ? ' · role' : ''}
              </span>
            </>
          ),
        },
        {
          header: 'Access',
          render: (u) => (
            <span className={u.hasAccess ? 'text-emerald-300' : 'text-slate-400'}>
              {u.hasAccess ? 'Active' : 'None'}
            </span>
          ),
        },
        {
          header: 'Role',
          render: (u) => (
            <>
              {u.role}
              {u.disabled ? <span className="block text-xs text-rose-300">disabled</span> : null}
            </>
          ),
        },
        { header: 'Joined', sortKey: 'createdAt', render: (u) => day(u.createdAt) },
      ]}
    />
  )
}

/** Complimentary access: days, on which plan, and a note for the ledger; validated as the API does. */
function GrantForm({ userId, run }: { userId: string; run: (work: () => Promise<string>) => Promise<void> }) {
  const ids = useId()
  const [days, setDays] = useState('30')
  const [planId, setPlanId] = useState('')
  const [note, setNote] = useState('')
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [busy, setBusy] = useState(false)
  const plans = useQuery({
    queryKey: ['admin', 'plans', 'for-grants'],
    queryFn: () =>
      fetchList<{ id: string; name: string; isActive: boolean }>('/admin/plans', {
        page: 1,
        limit: 100,
        search: '',
        sortBy: 'sortOrder',
        sortOrder: 'asc',
        filters: { includeArchived: 'false' },
      }),
  })

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
          const { message, data } = await act<{ endDate: string; plan: string }>(
            `/admin/users/${userId}/grant`,
            'POST',
            parsed.data,
          )
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

/** What admins did to this member, newest first (the audit log filtered to them). */
function MemberHistory({ userId }: { userId: string }) {
  const history = useQuery({
    queryKey: ['admin', 'audit', 'member', userId],
    queryFn: () =>
      fetchList<AuditEntry>('/admin/audit', {
        page: 1,
        limit: 10,
        search: '',
        sortBy: 'createdAt',
        sortOrder: 'desc',
        filters: { targetId: userId },
      }),
  })
  if (history.isPending) return <p className="text-sm text-slate-300">Loading...</p>
  if (history.isError) return <Alert tone="error">{history.error.message}</Alert>
  if (history.data.items.length === 0) return <p className="text-sm text-slate-300">No admin actions yet.</p>
  return (
    <ul className="divide-y divide-slate-800 text-sm">
      {history.data.items.map((entry) => (
        <li key={entry.id} className="flex flex-wrap justify-between gap-2 py-2 text-slate-200">
          <span>
            <span className="font-mono text-xs">{entry.action}</span> by {entry.actor?.email ?? 'system'}
            {entry.outcome === 'failure' ? <span className="text-rose-300"> (failed)</span> : null}
          </span>
          <span className="text-slate-400">{moment(entry.createdAt)}</span>
        </li>
      ))}
    </ul>
  )
}

/** One member: subscriptions, payments, Discord state and every operator action. */
export function UserDetailSection({ userId }: { userId: string }) {
  const queryClient = useQueryClient()
  const withUser = useMemberLinks()
  const { user: me } = useSession()
  const detail = useQuery({
    queryKey: ['admin', 'user', userId],
    queryFn: () => fetchData<UserDetail>(`/admin/users/${encodeURIComponent(userId)}`),
  })
  const [notice, setNotice] = useState<NoticeState>(null)
  const [reason, setReason] = useState('')
  const reasonId = useId()

  /** Runs an action, shows its outcome, and reloads what it changed. */
  const run = async (work: () => Promise<string>) => {
    setNotice(null)
    try {
      setNotice({ tone: 'success', text: await work() })
    } catch (error) {
      setNotice({ tone: 'error', text: failureText(error) })
    }
    await queryClient.invalidateQueries({ queryKey: ['admin'] })
  }
  const message = (path: string, body: unknown) => async () => (await act(path, 'POST', body)).message

  const back = (
    <Link to={withUser(null)} className={`${linkClasses} inline-block`}>
      ← All members
    </Link>
  )
  if (detail.isPending) return <p className="text-slate-300">Loading member...</p>
  if (detail.isError) {
    return (
      <div className="space-y-4">
        {back}
        <Alert tone="error">{detail.error.message}</Alert>
      </div>
    )
  }
  const { user, discord, subscriptions, payments } = detail.data
  const self = me?.id === user.id
  const name = fullName(user) || user.email
  const current = subscriptions.find(
    (s) => s.status === 'active' && (!s.endDate || new Date(s.endDate) > new Date()),
  )
  const moderation = (action: 'kick' | 'ban' | 'unban') => () =>
    run(message(`/admin/users/${action}`, { userId: user.id, reason: reason.trim() || undefined }))

  return (
    <div className="space-y-6">
      {back}
      <Notice notice={notice} />
      <Panel title={name}>
        <dl className="grid gap-4 text-sm sm:grid-cols-2 lg:grid-cols-3">
          <div>
            <dt className="text-slate-400">Email</dt>
            <dd className="break-all text-white">{user.email}</dd>
          </div>
          <div>
            <dt className="text-slate-400">Access</dt>
            <dd className={user.hasAccess ? 'text-emerald-300' : 'text-white'}>
              {user.hasAccess
                ? `Active · ${current?.planId.name ?? ''} · ${current?.endDate ? `until ${day(current.endDate)}` : 'lifetime'}`
                : 'None'}
            </dd>
          </div>
          <div>
            <dt className="text-slate-400">Role</dt>
            <dd className="text-white">
              {user.role}
              {user.disabled ? <span className="text-rose-300"> · disabled</span> : null}
            </dd>
          </div>
          <div>
            <dt className="text-slate-400">Joined</dt>
            <dd className="text-white">{day(user.createdAt)}</dd>
          </div>
          <div>
            <dt className="text-slate-400">Discord</dt>
            <dd className="text-white">
              {user.discordUsername || '—'} · {words(discord.state)}
              {discord.roleGranted ? ' · member role' : ''}
              {discord.banned ? <span className="text-rose-300"> · banned</span> : null}
            </dd>
          </div>
          <div>
            <dt className="text-slate-400">Last Discord sync</dt>
            <dd className="text-white">{moment(discord.lastSyncedAt)}</dd>
          </div>
          {discord.lastError ? (
            <div className="sm:col-span-2 lg:col-span-3">
              <dt className="text-slate-400">Last Discord error</dt>
              <dd className="text-rose-200">{discord.lastError}</dd>
            </div>
          ) : null}
        </dl>
      </Panel>

      <Panel title="Actions">
        <div className="space-y-6">
          <GrantForm userId={user.id} run={run} />

          <div className="space-y-2">
            <h3 className="text-sm font-semibold text-slate-200">Account</h3>
            <div className="flex flex-wrap items-start gap-2">
              {user.role === 'admin' ? (
                <ConfirmButton
                  label="Demote to member"
                  confirmLabel="Yes, demote"
                  question={`Remove ${name}'s admin rights?`}
                  disabled={self}
                  onConfirm={() => run(message(`/admin/users/${user.id}/role`, { role: 'member' }))}
                />
              ) : (
                <ConfirmButton
                  label="Promote to admin"
                  confirmLabel="Yes, promote"
                  question={`Give ${name} full admin rights?`}
                  onConfirm={() => run(message(`/admin/users/${user.id}/role`, { role: 'admin' }))}
                />
              )}
              {user.disabled ? (
                <Button
                  variant="secondary"
                  className="px-3 py-1.5"
                  onClick={() => run(message(`/admin/users/${user.id}/disable`, { disabled: false }))}
                >
                  Enable account
                </Button>
              ) : (
                <ConfirmButton
                  label="Disable account"
                  confirmLabel="Yes, disable"
                  question="Sign them out everywhere and block sign-in?"
                  variant="danger"
                  disabled={self}
                  onConfirm={() => run(message(`/admin/users/${user.id}/disable`, { disabled: true }))}
                />
              )}
            </div>
            {self ? (
              <p className="text-xs text-slate-400">You cannot demote or disable your own account.</p>
            ) : null}
          </div>

          <div className="space-y-2">
            <h3 className="text-sm font-semibold text-slate-200">Discord</h3>
            <div className="flex flex-wrap items-end gap-2">
              <div className="w-full sm:w-80">
                <label htmlFor={reasonId} className="mb-1 block text-sm text-slate-300">
                  Reason (optional, kept in Discord's audit log)
                </label>
                <input
                  id={reasonId}
                  className={inputClasses}
                  value={reason}
                  maxLength={300}
                  onChange={(event) => setReason(event.target.value)}
                />
              </div>
              <ConfirmButton
                label="Kick"
                confirmLabel="Yes, kick"
                question="Remove them from the Discord server? They can rejoin with a new invite."
                disabled={discord.banned}
                onConfirm={moderation('kick')}
              />
              {discord.banned ? (
                <Button variant="secondary" className="px-3 py-1.5" onClick={moderation('unban')}>
                  Unban
                </Button>
              ) : (
                <ConfirmButton
                  label="Ban"
                  confirmLabel="Yes, ban"
                  question="Ban them from Discord and revoke their invites?"
                  variant="danger"
                  onConfirm={moderation('ban')}
                />
              )}
            </div>
          </div>
        </div>
      </Panel>

      <Panel title="Subscriptions">
        {subscriptions.length === 0 ? (
          <p className="text-sm text-slate-300">None.</p>
        ) : (
          <ul className="divide-y divide-slate-800 text-sm">
            {subscriptions.map((s) => (
              <li key={s.id} className="flex flex-wrap justify-between gap-2 py-2 text-slate-200">
                <span>
                  {s.planId.name} · {providerLabel(s.provider)}
                </span>
                <span>
                  {words(s.status)}
                  {s.cancelAtPeriodEnd && s.status === 'active' ? ' (ends at period end)' : ''} ·{' '}
                  {day(s.startDate)} → {s.endDate ? day(s.endDate) : 'lifetime'}
                </span>
              </li>
            ))}
          </ul>
        )}
      </Panel>

      <Panel title="Payments">
        {payments.length === 0 ? (
          <p className="text-sm text-slate-300">None.</p>
        ) : (
          <ul className="divide-y divide-slate-800 text-sm">
            {payments.map((p) => (
              <li key={p.id} className="flex flex-wrap items-start justify-between gap-2 py-2 text-slate-200">
                <span>
                  {p.kind === 'tip' ? 'Tip' : (p.planId?.name ?? p.kind)}
                  {p.kind === 'renewal' ? ' renewal' : ''} · {providerLabel(p.provider)} · {day(p.createdAt)}
                  {p.kind === 'grant' && p.message ? (
                    <span className="block text-xs text-slate-400">{p.message}</span>
                  ) : null}
                </span>
                <span className="flex flex-wrap items-center justify-end gap-3">
                  <span>
                    {money(p.amount, p.currency)} · {words(p.status)}
                    {p.amountRefunded > 0 ? ` (${money(p.amountRefunded, p.currency)} refunded)` : ''}
                  </span>
                  {isRefundable(p) ? <RefundButton payment={p} onResult={setNotice} /> : null}
                </span>
              </li>
            ))}
          </ul>
        )}
      </Panel>

      <Panel title="Admin history">
        <MemberHistory userId={user.id} />
      </Panel>
    </div>
  )
}
