import type { ReactNode } from 'react'
import { isRouteErrorResponse, Links, Meta, Outlet, Scripts, ScrollRestoration } from 'react-router'
import { session } from './lib/session-store'
import './app.css'

// On start, restore a stored user and token (in the browser only; never at build time).
if (typeof window !== 'undefined') session.restore()

export function Layout({ children }: { children: ReactNode }) {
  return (
    <html lang="en" className="bg-slate-950">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="theme-color" content="#020617" />
        <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
        <Meta />
        <Links />
      </head>
      <body className="min-h-screen bg-slate-950 font-sans text-slate-200 antialiased">
        {children}
        <ScrollRestoration />
        <Scripts />
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
