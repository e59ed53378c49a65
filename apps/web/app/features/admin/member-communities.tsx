import type { AdminUserDetail } from '@edgeclub/shared'
import { moment } from '../../components/ui/console'

const chatState: Record<AdminUserDetail['telegram']['chats'][number]['state'], string> = {
  'not-joined': 'not joined',
  'link-sent': 'link sent',
  member: 'in the chat',
  removed: 'removed',
  declined: 'request declined',
  banned: 'banned',
}

const listOr = (items: string[], none: string) => (items.length > 0 ? items.join(', ') : none)

/** What the member's plan opens, and their Telegram account and chats beside Discord's summary. */
export function MemberCommunities({ telegram, places }: Pick<AdminUserDetail, 'telegram' | 'places'>) {
  return (
    <div className="space-y-4 text-sm">
      <dl className="grid gap-4 sm:grid-cols-3">
        <div>
          <dt className="text-slate-400">Discord roles</dt>
          <dd className="text-white">{listOr(places.discordRoles, 'none')}</dd>
        </div>
        <div>
          <dt className="text-slate-400">Telegram chats</dt>
          <dd className="text-white">{listOr(places.telegramChats, 'none')}</dd>
        </div>
        <div>
          <dt className="text-slate-400">Signal categories</dt>
          <dd className="text-white">
            {places.signalCategories === 'all' ? 'all' : listOr(places.signalCategories, 'none')}
          </dd>
        </div>
      </dl>
      <dl className="grid gap-4 sm:grid-cols-3">
        <div>
          <dt className="text-slate-400">Telegram</dt>
          <dd className={telegram.account ? 'text-emerald-300' : 'text-white'}>
            {telegram.account
              ? `${telegram.account.username ? `@${telegram.account.username}` : `id ${telegram.account.telegramUserId}`} · connected ${moment(telegram.account.connectedAt)}`
              : 'Not connected'}
            {telegram.banned ? <span className="text-rose-300"> · banned</span> : null}
          </dd>
        </div>
        <div>
          <dt className="text-slate-400">Reminders by Telegram</dt>
          <dd className="text-white">{telegram.reminders ? 'on' : 'off'}</dd>
        </div>
      </dl>
      {telegram.chats.length > 0 ? (
        <table className="w-full text-left">
          <caption className="sr-only">Telegram chats</caption>
          <thead className="text-slate-400">
            <tr>
              <th className="py-1 font-normal">Chat</th>
              <th className="py-1 font-normal">Plan grants it</th>
              <th className="py-1 font-normal">State</th>
            </tr>
          </thead>
          <tbody className="text-white">
            {telegram.chats.map((chat) => (
              <tr key={chat.placeId} className="border-t border-slate-800">
                <td className="py-1.5">{chat.title}</td>
                <td className="py-1.5">{chat.granted ? 'yes' : 'no'}</td>
                <td className="py-1.5">{chatState[chat.state]}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  )
}
