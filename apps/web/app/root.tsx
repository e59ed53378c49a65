import { paths } from '@edgeclub/shared'
import { type ReactNode, useContext } from 'react'
import {
  UNSAFE_FrameworkContext as FrameworkContext,
  isRouteErrorResponse,
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useLocation,
  useMatches,
} from 'react-router'
import favicon from '../public/favicon.svg?raw'
import { IslandsPageProvider, isIslandsHandle } from './lib/island'
import { preloadRoute } from './lib/preload-route'
import { session } from './lib/session-store'
import { openDashboard } from './routes/dashboard-tabs'
import './app.css'

/** In the page itself: one request fewer on every first visit. */
const faviconHref = `data:image/svg+xml,${encodeURIComponent(favicon.trim())}`

/**
 * True while the build prerenders a page whose route is an islands page: its HTML then carries no
 * React Router scripts, only the islands loader (scripts/public-pages.mjs writes it in place of the
 * placeholder and puts the page's CSS inline). Never for the SPA fallback page, which the build
 * renders for '/' too: React Router tells it apart only through its framework context. Should that
 * context change, the pages fall back to full hydration (heavier, never broken) and the build stops
 * at scripts/public-pages.mjs, which insists on finding islands pages.
 */
function useIslandsPrerender(): boolean {
  const matches = useMatches()
  const spaFallback = useContext(FrameworkContext)?.isSpaMode ?? true
  return (
    import.meta.env.PROD &&
    typeof document === 'undefined' &&
    !spaFallback &&
    matches.some((match) => isIslandsHandle(match.handle))
  )
}

// On start, restore a stored user and token (in the browser only; never at build time).
if (typeof window !== 'undefined') session.restore()

// A page opened at the dashboard asks for its route's code with every import at once (the router
// would ask once it has started, then one import level at a time), for its tab's code and for the
// session check (routes/dashboard-tabs.tsx).
if (typeof window !== 'undefined' && window.location.pathname === paths.dashboard) {
  preloadRoute('routes/dashboard')
  openDashboard(window.location.search)
}

export function Layout({ children }: { children: ReactNode }) {
  const islands = useIslandsPrerender()
  const { pathname } = useLocation()
  return (
    <html lang="en" className="bg-slate-950">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="theme-color" content="#020617" />
        <link rel="icon" href={faviconHref} type="image/svg+xml" />
        <Meta />
        <Links />
        {islands ? <script data-islands-loader="" /> : null}
      </head>
      <body className="min-h-screen bg-slate-950 font-sans text-slate-200 antialiased">
        {islands ? (
          <IslandsPageProvider pathname={pathname}>{children}</IslandsPageProvider>
        ) : (
          <>
            {children}
            <ScrollRestoration />
            <Scripts />
          </>
        )}
      </body>
    </html>
  )
}

export default function App() {
  return <Outlet />
}

export function HydrateFallback() {
  return (
    <div className="flex min-h-screen items-center justify-center" role="status">
      <p className="text-slate-400">Loading EdgeClub...</p>
    </div>
  )
}

export function ErrorBoundary({ error }: { error: unknown }) {
  const title =
    isRouteErrorResponse(error) && error.status === 404 ? 'Page not found' : 'Something went wrong'
  return (
    <main className="flex min-h-screen flex-col items-center justify-center gap-4 px-4 text-center">
      <h1 className="text-3xl font-bold text-white">{title}</h1>
      <p className="text-slate-300">Please reload the page. If the problem continues, contact support.</p>
      <a className="font-semibold text-emerald-300 underline" href="/">
        Back to home
      </a>
    </main>
  )
}
