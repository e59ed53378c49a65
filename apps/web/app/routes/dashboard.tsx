import { paths } from '@edgeclub/shared'
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { useNavigate, useSearchParams } from 'react-router'
import { MenuIcon } from '../components/ui/icons'
import { fetchProfile, logout } from '../features/auth/auth-api'
import { FlashMessage } from '../features/dashboard/flash-message'
import { Sidebar } from '../features/dashboard/sidebar'
import { DashboardTabPanel } from '../features/dashboard/tab-panel'
import { DASHBOARD_TABS, tabFrom } from '../features/dashboard/tabs'
import { useSidebar } from '../features/dashboard/use-sidebar'
import { seo } from '../lib/seo'
import { useSession } from '../lib/use-session'

export function meta() {
  return [
    ...seo('Dashboard', 'Your EdgeClub membership, payments and community access.'),
    { name: 'robots', content: 'noindex' },
  ]
}

/** Server state of the member area lives in TanStack Query, created with the dashboard (not on public pages). */
const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: 1, staleTime: 10_000, refetchOnWindowFocus: true } },
})

type Check = 'verifying' | 'verified'

/** SPEC §2: only for signed-in members; 'Verifying authentication...' while the session is checked. */
export default function Dashboard() {
  const navigate = useNavigate()
  const { isAuthenticated } = useSession()
  const [check, setCheck] = useState<Check>('verifying')

  useEffect(() => {
    if (!isAuthenticated) {
      navigate(paths.login, { replace: true })
      return
    }
    if (check === 'verified') return
    let cancelled = false
    fetchProfile().then((result) => {
      if (cancelled) return
      // A session the server no longer accepts was cleared by the API client; the guard above redirects.
      if (result.success || result.code !== 'UNAUTHORIZED') setCheck('verified')
    })
    return () => {
      cancelled = true
    }
  }, [isAuthenticated, check, navigate])

  if (!isAuthenticated || check === 'verifying') {
    return (
      <div className="flex min-h-screen items-center justify-center" role="status">
        <p className="text-slate-300">Verifying authentication...</p>
      </div>
    )
  }
  return (
    <QueryClientProvider client={queryClient}>
      <DashboardFrame />
    </QueryClientProvider>
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

  const signOut = async () => {
    setSigningOut(true)
    try {
      await logout()
    } finally {
      queryClient.clear()
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
          <FlashMessage />
          <DashboardTabPanel tab={tab} />
        </main>
      </div>
    </div>
  )
}
