import { type AdminUser, AdminUserPageSchema } from '@edgeclub/shared'
import { Link } from 'react-router'
import { day, words } from '../../components/ui/console'
import { DataTable } from './data-table'
import { linkClasses, useMemberLinks } from './member-links'
import { fullName } from './members-api'

/** The members list: search, filter by role, sort, export; each email opens the member's page. */
export function UsersSection() {
  const withUser = useMemberLinks()
  return (
    <DataTable<AdminUser>
      title="Members"
      path="/admin/users"
      schema={AdminUserPageSchema}
      searchLabel="Search email, name, Discord or plan"
      defaultSort="createdAt"
      exportName="members"
      filters={[
        {
          name: 'role',
          label: 'Role',
          options: [
            { value: 'member', label: 'Members' },
            { value: 'analyst', label: 'Analysts' },
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
                <span className={u.discord.verified ? 'text-emerald-300' : 'text-amber-300'}>
                  {u.discord.verified ? 'verified' : 'unverified'}
                </span>
                {' · '}
                {words(u.discord.state)}
                {u.discord.roleGranted ? ' · role' : ''}
              </span>
            </>
          ),
        },
        {
          header: 'Telegram',
          render: (u) =>
            u.telegram.connected ? (
              <span className="text-emerald-300">{u.telegram.username}</span>
            ) : (
              <span className="text-slate-400">—</span>
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
