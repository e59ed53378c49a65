/** Every link in the web app and every decision about which frame a route gets comes from here. */
export const paths = {
  home: '/',
  tips: '/tips',
  pricing: '/pricing',
  about: '/about',
  contact: '/contact',
  record: '/record',
  login: '/login',
  register: '/register',
  forgotPassword: '/forgot-password',
  resetPassword: '/reset-password',
  payment: '/payment',
  dashboard: '/dashboard',
  /** Where Discord sends a member back after Connect Discord (the OAuth2 redirect URI). */
  discordCallback: '/dashboard/discord/callback',
  admin: '/admin',
} as const

export type AppPath = (typeof paths)[keyof typeof paths]

/** The dashboard's tabs, in sidebar order; the address keeps the open one (`/dashboard?tab=settings`). */
export const DASHBOARD_TABS = [
  'overview',
  'signals',
  'subscription',
  'payments',
  'tip',
  'community',
  'settings',
] as const
export type DashboardTab = (typeof DASHBOARD_TABS)[number]

/** The Subscription tab opened on its card form (`&action=update-card`): where a failed renewal leads. */
export const UPDATE_CARD_ACTION = 'update-card'
export const updateCardPath = () => `${paths.dashboard}?tab=subscription&action=${UPDATE_CARD_ACTION}`
/** Tab names that moved: links in emails and bookmarks from before still open the right tab. */
export const RENAMED_DASHBOARD_TABS: Readonly<Record<string, DashboardTab>> = { discord: 'community' }

/** A link to one dashboard tab, relative (`?tab=…` inside the dashboard) or from the site's root. */
export function dashboardTab(tab: DashboardTab, from: 'root' | 'dashboard' = 'root'): string {
  return from === 'root' ? `${paths.dashboard}?tab=${tab}` : `?tab=${tab}`
}

/** Public pages rendered to HTML at build time (and listed in the sitemap). */
export const prerenderedPaths = [
  paths.home,
  paths.about,
  paths.tips,
  paths.pricing,
  paths.contact,
  paths.record,
] as const

/** Routes that own nested paths (e.g. /admin/users). */
const sectionPaths: readonly string[] = [paths.dashboard, paths.admin]

/** The base path of the JSON API. */
export const API_BASE = '/discord/api'

function normalize(pathname: string): string {
  if (pathname.length > 1 && pathname.endsWith('/')) return pathname.slice(0, -1)
  return pathname
}

function inSection(pathname: string, section: string): boolean {
  return pathname === section || pathname.startsWith(`${section}/`)
}

/** True when the path is one of the web app's routes; anything else is answered with a 404 page. */
export function isAppPath(pathname: string): boolean {
  const path = normalize(pathname)
  return (
    (Object.values(paths) as string[]).includes(path) ||
    sectionPaths.some((section) => inSection(path, section))
  )
}

/** The header shows on every route except the member and admin consoles. */
export function showsHeader(pathname: string): boolean {
  const path = normalize(pathname)
  return !sectionPaths.some((section) => inSection(path, section))
}

const pathsWithoutFooter: readonly string[] = [
  paths.login,
  paths.register,
  paths.forgotPassword,
  paths.resetPassword,
  paths.payment,
]

/** The footer shows everywhere except the sign-in screens, payment and the consoles. */
export function showsFooter(pathname: string): boolean {
  const path = normalize(pathname)
  return showsHeader(path) && !pathsWithoutFooter.includes(path)
}

/** The Signals tab opened on one signal (`&signal=<id>`): where a push notification leads. */
export const signalPath = (id: string) => `${paths.dashboard}?tab=signals&signal=${encodeURIComponent(id)}`

/**
 * The dashboard's service worker and the part of the site it controls: the signed-in app only, so
 * public pages never load or run service-worker code (decision 023).
 */
export const serviceWorker = {
  script: '/sw.js',
  scope: '/dashboard',
  manifest: '/manifest.webmanifest',
} as const
