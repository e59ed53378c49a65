import type { AdminUserDetail, SubscriptionView } from '@edgeclub/shared'
import { day, moment, words } from '../../components/ui/console'

/**
 * 'Active · Yearly · until Mar 3, 2027', 'Active · {plan} · lifetime' or 'None', from the
 * subscription the server says gives access now (the console never works access out from dates).
 * A renewal past due gives access until its grace period ends, so that is the day shown for it.
 */
export function accessLine(current: SubscriptionView | null): string {
  if (!current) return 'None'
  const until = current.status === 'past_due' && current.graceUntil ? current.graceUntil : current.endDate
  return `Active · ${current.planId.name} · ${until ? `until ${day(until)}` : 'lifetime'}`
}

/**
 * Where the member's plan stands beyond access: 'Trial — ends {date}', 'Paused — resumes {date}'
 * (or, paused from the end of the paid period, 'Pauses {date} — resumes {date}'), 'Switches to
 * {plan} on {date}' and 'Ends at period end'. Empty when there is nothing to say.
 */
export function planStateLines(shown: SubscriptionView | null): string[] {
  if (!shown) return []
  const lines: string[] = []
  if (shown.status === 'trialing' && shown.trialEndsAt) lines.push(`Trial — ends ${day(shown.trialEndsAt)}`)
  if (shown.resumesAt) {
    lines.push(
      shown.status === 'paused' || !shown.endDate
        ? `Paused — resumes ${day(shown.resumesAt)}`
        : `Pauses ${day(shown.endDate)} — resumes ${day(shown.resumesAt)}`,
    )
  }
  if (shown.scheduledChange)
    lines.push(`Switches to ${shown.scheduledChange.planName} on ${day(shown.scheduledChange.effectiveAt)}`)
  if (shown.cancelAtPeriodEnd && shown.status !== 'cancelled' && shown.status !== 'expired')
    lines.push(`Ends ${day(shown.endDate)} (cancelled)`)
  return lines
}

/** The subscription whose state the member page shows: the one giving access, else a paused one. */
export function shownSubscription(
  currentAccess: SubscriptionView | null,
  subscriptions: readonly SubscriptionView[],
): SubscriptionView | null {
  return currentAccess ?? subscriptions.find((item) => item.status === 'paused') ?? null
}

/** Who the member is: email, access now (plan and until when), role, joined, and their Discord link. */
export function MemberSummary({
  user,
  discord,
  currentAccess,
  subscriptions = [],
}: Pick<AdminUserDetail, 'user' | 'discord' | 'currentAccess'> & {
  subscriptions?: AdminUserDetail['subscriptions']
}) {
  const state = planStateLines(shownSubscription(currentAccess, subscriptions))
  return (
    <dl className="grid gap-4 text-sm sm:grid-cols-2 lg:grid-cols-3">
      <div>
        <dt className="text-slate-400">Email</dt>
        <dd className="break-all text-white">{user.email}</dd>
      </div>
      <div>
        <dt className="text-slate-400">Access</dt>
        <dd className={currentAccess ? 'text-emerald-300' : 'text-white'}>{accessLine(currentAccess)}</dd>
      </div>
      {state.length > 0 ? (
        <div>
          <dt className="text-slate-400">Plan status</dt>
          {state.map((line) => (
            <dd key={line} className="text-sky-200">
              {line}
            </dd>
          ))}
        </div>
      ) : null}
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
        <dt className="text-slate-400">Discord link</dt>
        <dd className={discord.verified ? 'text-emerald-300' : 'text-amber-300'}>
          {discord.verified
            ? `Verified · ${discord.verifiedUsername} · connected ${moment(discord.verifiedAt)}`
            : 'Unverified · only the username they typed'}
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
  )
}
