/**
 * The dashboard page's boot script: a few lines written into the page the server sends for the
 * signed-in app (the SPA fallback), run as the HTML is parsed, before React, the router and the
 * app's code (~130 KiB on a phone, ~0.75 s on slow 4G) have arrived. For a page opened at
 * /dashboard with a stored session it:
 * - starts the session check (GET /auth/profile with the stored token) and the GETs the open tab's
 *   first screen waits for (routes/dashboard-tab-preload.ts), whose answers the API client takes
 *   (earlyOr) instead of asking once the app's code has run;
 * - preloads the dashboard route's module and the open tab's chunks (their addresses come from the
 *   build: vite.config.ts), which the app would otherwise ask for only once its code had run.
 * Nothing renders earlier and nothing is decided here: the app still shows 'Verifying
 * authentication...' until it has read the check's answer, and an early answer goes through the API
 * client like its own (a 401 is refreshed and asked again, a failed request is sent again).
 */

export interface DashboardBootConfig {
  /** paths.dashboard */
  path: string
  /** The localStorage keys of the stored session (lib/storage-keys.ts). */
  keys: { token: string; user: string }
  /** API_BASE */
  api: string
  /** The dashboard route's module and imports not already preloaded by the page. */
  route: string[]
  /** Each tab's chunks and their imports. */
  tabs: Record<string, string[]>
  /** GETs asked for on every tab, then on each tab. */
  requests: BootRequest[]
  tabRequests: Record<string, BootRequest[]>
  /** Old tab names (RENAMED_DASHBOARD_TABS). */
  renamed: Record<string, string>
  /** The tab opened without ?tab= or with an unknown one. */
  fallbackTab: string
}

/**
 * A GET under `api`, exactly as the app asks for it: `auth` sends the stored token (a public answer is
 * asked without it).
 */
export interface BootRequest {
  path: string
  auth: boolean
}

/** What the boot script leaves for the app: the stored token it used and its requests by path. */
export interface DashboardBoot {
  token: string
  responses: Record<string, Promise<Response> | undefined>
}

/** Run in the page as written (Function.prototype.toString): plain browser code, no imports. */
function boot(config: DashboardBootConfig): void {
  if (location.pathname !== config.path) return
  let token: string | null
  try {
    token = localStorage.getItem(config.keys.token)
    if (!token || !localStorage.getItem(config.keys.user)) return
  } catch {
    return
  }
  const asked = new URLSearchParams(location.search).get('tab') || config.fallbackTab
  const tab = config.tabs[config.renamed[asked] ?? asked]
    ? (config.renamed[asked] ?? asked)
    : config.fallbackTab
  for (const href of config.route.concat(config.tabs[tab] ?? [])) {
    const link = document.createElement('link')
    link.rel = 'modulepreload'
    link.href = href
    document.head.append(link)
  }
  const responses: DashboardBoot['responses'] = {}
  for (const request of config.requests.concat(config.tabRequests[tab] ?? [])) {
    const headers: Record<string, string> = { accept: 'application/json' }
    if (request.auth) headers.authorization = `Bearer ${token}`
    const response = fetch(config.api + request.path, { headers })
    response.catch(() => undefined)
    responses[request.path] = response
  }
  const early: DashboardBoot = { token, responses }
  ;(window as { __dashboardBoot?: DashboardBoot }).__dashboardBoot = early
}

/**
 * The inline script for the page (vite.config.ts writes it at build time). Its work runs in a task of
 * its own, right after the parser has moved on: the first touch of localStorage and fetch takes a
 * phone tens of milliseconds, which inside the parser's task held back the stylesheet's and the
 * app's scripts' requests.
 */
export function dashboardBootScript(config: DashboardBootConfig): string {
  return `setTimeout(${boot.toString()},0,${JSON.stringify(config)})`
}

/**
 * GET `path` (under the API base) as the boot script asked it, once, if it asked with the session the
 * app holds now; else, or when that request failed, `ask()`: the caller's own request.
 */
export function earlyOr(path: string, token: string | null, ask: () => Promise<Response>): Promise<Response> {
  const early =
    typeof window === 'undefined'
      ? undefined
      : (window as { __dashboardBoot?: DashboardBoot }).__dashboardBoot
  const response = early?.responses[path]
  if (!early || !response) return ask()
  early.responses[path] = undefined
  return token && early.token === token ? response.catch(ask) : ask()
}
