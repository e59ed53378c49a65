import { showsFooter, showsHeader } from '@edgeclub/shared'
import { useMemo } from 'react'
import { Link, Outlet, useLocation, useNavigate } from 'react-router'
import { SiteFooter } from '../components/site-footer'
import { siteHeaderIsland } from '../components/site-header'
import { Island } from '../lib/island'
import { type AppLinkProps, type Navigation, NavigationProvider } from '../lib/navigation'

function RouterLink({ to, ...props }: AppLinkProps) {
  return <Link to={to} {...props} />
}

/** Inside the app, links and navigation are React Router's (client-side, with location state). */
function useRouterNavigation(): Navigation {
  const { pathname } = useLocation()
  const navigate = useNavigate()
  return useMemo(
    () => ({
      pathname,
      Link: RouterLink,
      navigate: (to: string, options?: { state?: unknown }) => navigate(to, { state: options?.state }),
    }),
    [pathname, navigate],
  )
}

/** Where the header and footer show, in one place (the rules live in @edgeclub/shared paths). */
export default function SiteLayout() {
  const { pathname } = useLocation()
  const navigation = useRouterNavigation()
  return (
    <NavigationProvider value={navigation}>
      <div className="flex min-h-screen flex-col">
        <a
          href="#main"
          className="sr-only focus:not-sr-only focus:absolute focus:left-4 focus:top-4 focus:z-50 focus:rounded focus:bg-emerald-400 focus:px-4 focus:py-2 focus:text-slate-950"
        >
          Skip to content
        </a>
        {showsHeader(pathname) ? <Island of={siteHeaderIsland} /> : null}
        <main id="main" className="flex-1">
          <Outlet />
        </main>
        {showsFooter(pathname) ? <SiteFooter /> : null}
      </div>
    </NavigationProvider>
  )
}
