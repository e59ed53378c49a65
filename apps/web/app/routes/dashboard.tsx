import { paths, serviceWorker } from '@edgeclub/shared'
import { QueryClientProvider } from '@tanstack/react-query'
import { type ComponentType, lazy, Suspense, useEffect, useState } from 'react'
import { useNavigate, useSearchParams } from 'react-router'
import { OfflineBanner } from '../components/offline-banner'
import { MenuIcon } from '../components/ui/icons'
import { logout } from '../features/auth/auth-api'
import { FlashMessage } from '../features/dashboard/flash-message'
import { Sidebar } from '../features/dashboard/sidebar'
import { DASHBOARD_TABS, type DashboardTab, tabFrom } from '../features/dashboard/tabs'
import { useSidebar } from '../features/dashboard/use-sidebar'
import { queryClient } from '../lib/query-client'
import { seo } from '../lib/seo'
import { registerDashboardWorker } from '../lib/service-worker'
import { SessionGuard } from '../lib/session-guard'

export function meta() {
  return [
    ...seo('Dashboard', 'Your EdgeClub membership, payments and community access.'),
    { name: 'robots', content: 'noindex' },
  ]
}

/** The dashboard is installable (its manifest); public pages do not link it. */
export function links() {
  return [
    { rel: 'manifest', href: serviceWorker.manifest },
    { rel: 'apple-touch-icon', href: '/icons/icon-192.png' },
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

  // The app shell for instant repeat visits, and notifications: the dashboard's service worker.
  useEffect(() => {
    void registerDashboardWorker()
  }, [])

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
 * Each tab is its own chunk, loaded when it opens: a member on a phone downloads and parses the tab
 * they look at, not the nine others (the tip form's card fields, the admin-grade settings, ...).
 */
const loaders: Record<DashboardTab, () => Promise<ComponentType>> = {
  overview: () => import('../features/dashboard/overview-tab').then((m) => m.OverviewTab),
  signals: () => import('../features/signals/signals-tab').then((m) => m.SignalsTab),
  subscription: () => import('../features/subscriptions/subscription-tab').then((m) => m.SubscriptionTab),
  payments: () => import('../features/payments/history-tab').then((m) => m.PaymentHistoryTab),
  tip: () => import('../features/tips/tip-tab').then((m) => m.TipTab),
  community: () => import('../features/community/community-tab').then((m) => m.CommunityTab),
  settings: async () => {
    const [{ SettingsTab }, { NotificationsPanel }, { DiscordSettingsPanel }, { TelegramSettingsPanel }] =
      await Promise.all([
        import('../features/settings/settings-tab'),
        import('../features/settings/notifications-panel'),
        import('../features/community/discord-connection'),
        import('../features/community/telegram-card'),
      ])
    return () => (
      <SettingsTab
        panels={
          <>
            <NotificationsPanel />
            <DiscordSettingsPanel />
            <TelegramSettingsPanel />
          </>
        }
      />
    )
  },
}

const loading = new Map<DashboardTab, Promise<ComponentType>>()
const loaded = new Map<DashboardTab, ComponentType>()

/** Starts loading a tab's chunk (once; a failed load is tried again next time). */
function loadTab(tab: DashboardTab): Promise<ComponentType> {
  let promise = loading.get(tab)
  if (!promise) {
    promise = loaders[tab]().then((component) => {
      loaded.set(tab, component)
      return component
    })
    promise.catch(() => loading.delete(tab))
    loading.set(tab, promise)
  }
  return promise
}

/**
 * A tab whose chunk is already here renders at once instead of suspending: React.lazy reads a
 * thenable that calls back synchronously without waiting, and React shows the fallback and holds the
 * content back for its minimum fallback time (300 ms) only when it has to wait.
 */
const tabs = {} as Record<DashboardTab, ComponentType>
for (const tab of Object.keys(loaders) as DashboardTab[])
  tabs[tab] = lazy(() => {
    const component = loaded.get(tab)
    if (!component) return loadTab(tab).then((loadedTab) => ({ default: loadedTab }))
    const ready = { default: component }
    // biome-ignore lint/suspicious/noThenProperty: React.lazy takes a thenable; this one answers at once, so the tab renders without suspending
    return { then: (resolve: (value: typeof ready) => void) => resolve(ready) } as Promise<typeof ready>
  })

// The tab in the address starts loading as soon as this module does, while the session is checked
// ('Verifying authentication...'), not after: on a phone that was one more round trip before the tab.
if (typeof window !== 'undefined' && window.location.pathname === paths.dashboard)
  void loadTab(tabFrom(new URLSearchParams(window.location.search).get('tab')))

/** The open tab; the address keeps it (?tab=settings). */
function TabPanel({ tab }: { tab: DashboardTab }) {
  const Tab = tabs[tab]
  return (
    <Suspense fallback={<p className="text-sm text-slate-400">Loading…</p>}>
      <Tab />
    </Suspense>
  )
}
