import { paths, site } from '@edgeclub/shared'
import { Link } from 'react-router'
import { LogoMark } from '../../components/ui/icons'
import { isActive, useSubscriptionStatus } from '../../lib/subscription-status-api'
import { useSession } from '../../lib/use-session'
import { DASHBOARD_TABS, type DashboardTab } from './tabs'

function initialsOf(user: { firstName?: string; lastName?: string; email?: string } | null): string {
  const fromName = `${user?.firstName?.[0] ?? ''}${user?.lastName?.[0] ?? ''}`
  return (fromName || user?.email?.[0] || 'U').toUpperCase()
}

/** Full name, else email, else 'User'. */
function displayName(user: { firstName?: string; lastName?: string; email?: string } | null): string {
  const full = `${user?.firstName ?? ''} ${user?.lastName ?? ''}`.trim()
  return full || user?.email || 'User'
}

export function Sidebar({
  open,
  tab,
  onChoose,
  onSignOut,
  signingOut,
}: {
  open: boolean
  tab: DashboardTab
  onChoose: () => void
  onSignOut: () => void
  signingOut: boolean
}) {
  const { user } = useSession()
  const status = useSubscriptionStatus()
  // On wide screens the sidebar runs the full height of the page (its border and background reach the
  // bottom however long the tab), while its contents stay in view as the page scrolls. On small
  // screens it is a drawer over the page.
  return (
    <aside
      id="dashboard-sidebar"
      aria-label="Dashboard"
      hidden={!open}
      className="fixed inset-y-0 left-0 z-30 w-64 shrink-0 border-r border-slate-800 bg-slate-950 lg:static"
    >
      <div className="flex h-full flex-col lg:sticky lg:top-0 lg:h-screen">
        <Link to={paths.home} className="flex items-center gap-2 px-5 py-5 text-lg font-extrabold text-white">
          <LogoMark />
          {site.name}
        </Link>
        <nav aria-label="Dashboard sections" className="flex-1 overflow-y-auto px-3">
          <ul className="space-y-1">
            {DASHBOARD_TABS.map((item) => (
              <li key={item.id}>
                <Link
                  to={`?tab=${item.id}`}
                  onClick={onChoose}
                  aria-current={item.id === tab ? 'page' : undefined}
                  className={`block rounded-lg px-3 py-2 text-sm font-medium ${
                    item.id === tab
                      ? 'bg-emerald-400/15 text-emerald-200'
                      : 'text-slate-300 hover:bg-slate-900 hover:text-white'
                  }`}
                >
                  {item.label}
                </Link>
              </li>
            ))}
            {user?.role === 'admin' || user?.role === 'analyst' ? (
              <li>
                <Link
                  to={user.role === 'admin' ? paths.admin : `${paths.admin}?section=signals`}
                  className="mt-4 block rounded-lg px-3 py-2 text-sm font-medium text-amber-200 hover:bg-slate-900"
                >
                  {user.role === 'admin' ? 'Admin console' : 'Publish signals'}
                </Link>
              </li>
            ) : null}
          </ul>
        </nav>
        <div className="border-t border-slate-800 p-4">
          <div className="flex items-center gap-3">
            <span
              aria-hidden="true"
              className="flex h-10 w-10 items-center justify-center rounded-full bg-emerald-400 text-sm font-bold text-slate-950"
            >
              {initialsOf(user)}
            </span>
            <div className="min-w-0">
              <p className="truncate text-sm font-semibold text-white">{displayName(user)}</p>
              <p className="text-xs text-slate-400">{isActive(status.data) ? 'Premium Member' : 'Member'}</p>
            </div>
          </div>
          <button
            type="button"
            onClick={onSignOut}
            disabled={signingOut}
            className="mt-4 w-full rounded-lg border border-slate-700 px-3 py-2 text-sm font-medium text-slate-200 hover:border-rose-400 hover:text-rose-200 disabled:opacity-60"
          >
            {signingOut ? 'Signing Out...' : 'Sign Out'}
          </button>
        </div>
      </div>
    </aside>
  )
}
