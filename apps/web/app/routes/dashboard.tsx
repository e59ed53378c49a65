import { paths, serviceWorker } from '@edgeclub/shared'
import { QueryClientProvider } from '@tanstack/react-query'
import { Suspense, useEffect, useState } from 'react'
import { useNavigate, useSearchParams } from 'react-router'
import { OfflineBanner } from '../components/offline-banner'
import { MenuIcon } from '../components/ui/icons'
import { logout } from '../features/auth/auth-api'
import { FlashMessage } from '../features/dashboard/flash-message'
import { Sidebar } from '../features/dashboard/sidebar'
import { DASHBOARD_TABS, type DashboardTab, tabFrom } from '../features/dashboard/tabs'
import { useSidebar } from '../features/dashboard/use-sidebar'
import { afterFirstScreen } from '../lib/after-first-screen'
import { queryClient } from '../lib/query-client'
import { seo } from '../lib/seo'
import { registerDashboardWorker } from '../lib/service-worker'
import { SessionGuard } from '../lib/session-guard'
import { tabs } from './dashboard-tabs'

export function meta() {
  return [
    ...seo('Dashboard', 'Your EdgeClub membership, payments and community access.'),
    { name: 'robots', content: 'noindex' },
  ]
}

/** The member dashboard: signed-in members only. */
export default function Dashboard() {
  return (
    <SessionGuard>
      <QueryClientProvider client={queryClient}>
        <DashboardFrame />
      </QueryClientProvider>
    </SessionGuard>
  )
}

function DashboardFrame() {
  const navigate = useNavigate()
  const [params] = useSearchParams()
  const tab = tabFrom(params.get('tab'))
  const label = DASHBOARD_TABS.find((item) => item.id === tab)?.label ?? 'Overview'
  const sidebar = useSidebar()
  const [signingOut, setSigningOut] = useState(false)

  // Coming back from the payment page (or anywhere else): what we cached may be out of date.
  useEffect(() => {
    void queryClient.invalidateQueries()
  }, [])

  // The app shell for instant repeat visits, and notifications: the dashboard's service worker,
  // registered once the first screen is up (its install fetches and caches the shell, which on a
  // phone's first visit would compete with the tab's own requests). Turning notifications on in
  // Settings registers it at once if it is not yet.
  useEffect(() => afterFirstScreen(() => void registerDashboardWorker()), [])

  // Signing out always ends on the sign-in page; the cache goes with the session (lib/query-client).
  const signOut = async () => {
    setSigningOut(true)
    try {
      await logout()
    } finally {
      navigate(paths.login, { replace: true })
    }
  }

  return (
    <div className="min-h-screen lg:flex">
      <InstallLinks />
      <Sidebar
        open={sidebar.open}
        tab={tab}
        onChoose={sidebar.afterTabChosen}
        onSignOut={signOut}
        signingOut={signingOut}
      />
      <div className="min-w-0 flex-1">
        <div className="flex items-center gap-3 border-b border-slate-800 px-4 py-4 sm:px-6">
          <button
            type="button"
            onClick={sidebar.toggle}
            aria-expanded={sidebar.open}
            aria-controls="dashboard-sidebar"
            className="rounded-md p-2 text-slate-300 hover:bg-slate-900 hover:text-white"
          >
            <span className="sr-only">{sidebar.open ? 'Close sidebar' : 'Open sidebar'}</span>
            <MenuIcon />
          </button>
          <div>
            <h1 className="text-xl font-bold text-white sm:text-2xl">{label}</h1>
            <p className="text-sm text-slate-400">Welcome to your trading dashboard</p>
          </div>
        </div>
        <main className="space-y-6 px-4 py-6 sm:px-6">
          <OfflineBanner />
          <FlashMessage />
          <TabPanel tab={tab} />
        </main>
      </div>
    </div>
  )
}

/**
 * The dashboard is installable: its manifest and touch icon, linked once the first screen is up (on
 * a phone the manifest and the icon it names would otherwise take connections from the tab's own
 * requests). React puts the links in the document's head. Public pages do not link them.
 */
function InstallLinks() {
  const [linked, setLinked] = useState(false)
  useEffect(() => afterFirstScreen(() => setLinked(true)), [])
  return linked ? (
    <>
      <link rel="manifest" href={serviceWorker.manifest} />
      <link rel="apple-touch-icon" href="/icons/icon-192.png" />
    </>
  ) : null
}

/** The open tab; the address keeps it (?tab=settings). */
function TabPanel({ tab }: { tab: DashboardTab }) {
  const Tab = tabs[tab]
  return (
    <Suspense fallback={<p className="text-sm text-slate-400">Loading…</p>}>
      <Tab />
    </Suspense>
  )
}
