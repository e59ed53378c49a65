import { Link } from 'react-router'
import { Notice, useConsoleAction } from '../../components/ui/console'
import { Alert } from '../../components/ui/field'
import { Panel } from '../../components/ui/panel'
import { useSession } from '../../lib/use-session'
import { AccountActions } from './account-actions'
import { DiscordActions } from './discord-actions'
import { GrantForm } from './grant-form'
import { MemberCommunities } from './member-communities'
import { MemberHistory } from './member-history'
import { linkClasses, useMemberLinks } from './member-links'
import { MemberPayments } from './member-payments'
import { MemberSubscriptions } from './member-subscriptions'
import { MemberSummary } from './member-summary'
import { fullName, useMemberDetail } from './members-api'
import { MembershipActions } from './membership-actions'

/** One member: subscriptions, payments, Discord and Telegram state and every operator action. */
export function UserDetailSection({ userId }: { userId: string }) {
  const withUser = useMemberLinks()
  const { user: me } = useSession()
  const detail = useMemberDetail(userId)
  const { notice, setNotice, run } = useConsoleAction(['admin'])

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
  const { user, discord, telegram, places, currentAccess, subscriptions, payments } = detail.data
  const self = me?.id === user.id
  const name = fullName(user) || user.email

  return (
    <div className="space-y-6">
      {back}
      <Notice notice={notice} />
      <Panel title={name}>
        <MemberSummary
          user={user}
          discord={discord}
          currentAccess={currentAccess}
          subscriptions={subscriptions}
        />
      </Panel>
      <Panel title="Places and Telegram">
        <MemberCommunities telegram={telegram} places={places} />
      </Panel>
      <Panel title="Actions">
        <div className="space-y-6">
          <GrantForm userId={user.id} run={run} />
          <MembershipActions userId={user.id} run={run} />
          <AccountActions user={user} name={name} self={self} run={run} />
          <DiscordActions userId={user.id} banned={discord.banned || telegram.banned} run={run} />
        </div>
      </Panel>
      <Panel title="Subscriptions">
        <MemberSubscriptions subscriptions={subscriptions} />
      </Panel>
      <Panel title="Payments">
        <MemberPayments payments={payments} onResult={setNotice} />
      </Panel>
      <Panel title="Admin history">
        <MemberHistory userId={user.id} />
      </Panel>
    </div>
  )
}
