import { showsFooter, showsHeader } from '@edgeclub/shared'
import { Outlet, useLocation } from 'react-router'
import { SiteFooter } from '../components/site-footer'
import { SiteHeader } from '../components/site-header'

/** Where the header and footer show, in one place (the rules live in @edgeclub/shared paths). */
export default function SiteLayout() {
  const { pathname } = useLocation()
  return (
    <div className="flex min-h-screen flex-col">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:absolute focus:left-4 focus:top-4 focus:z-50 focus:rounded focus:bg-emerald-400 focus:px-4 focus:py-2 focus:text-slate-950"
      >
        Skip to content
      </a>
      {showsHeader(pathname) ? <SiteHeader /> : null}
      <main id="main" className="flex-1">
        <Outlet />
      </main>
      {showsFooter(pathname) ? <SiteFooter /> : null}
    </div>
  )
}
