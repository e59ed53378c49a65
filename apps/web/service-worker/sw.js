/// <reference lib="webworker" />
// The dashboard's service worker (decision 023), registered only by the signed-in dashboard with the
// scope /dashboard: public pages never load or run it. The web build (scripts/service-worker.mjs)
// writes it to /sw.js with the build's version and the app shell's files in place of the two
// placeholders below.
//
// - The app shell (the dashboard page and its hashed scripts and styles) is cached, so a repeat visit
//   opens at once; the page is refreshed in the background for the next visit.
// - Data is never cached: the API (/discord/api/...) always goes to the network.
// - Offline without a cached shell: a page that says so.
// - Push: each notification as the server sent it; a tap opens (or focuses) the pick in the dashboard.

const VERSION = '__EDGECLUB_VERSION__'
/** @type {string[]} */
const SHELL_FILES = JSON.parse('__EDGECLUB_SHELL__')
const SHELL_PAGE = '/dashboard'
const CACHE = `edgeclub-shell-${VERSION}`
const API = '/discord/api/'

/** @type {ServiceWorkerGlobalScope} */
const sw = /** @type {any} */ (self)

const OFFLINE_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Offline — EdgeClub</title></head><body style="background:#020617;color:#e2e8f0;font-family:system-ui,sans-serif;display:flex;min-height:100vh;align-items:center;justify-content:center;margin:0"><main style="max-width:28rem;padding:1.5rem;text-align:center"><h1 style="color:#fff">You're offline</h1><p>EdgeClub could not be reached. Check your connection; the dashboard opens again as soon as you are back online.</p></main></body></html>`

sw.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE)
      await cache.addAll([SHELL_PAGE, ...SHELL_FILES])
      await sw.skipWaiting()
    })(),
  )
})

sw.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys())
        if (name.startsWith('edgeclub-shell-') && name !== CACHE) await caches.delete(name)
      await sw.clients.claim()
    })(),
  )
})

/** The dashboard page: the cached shell at once, refreshed from the network for the next visit. */
async function shell(event) {
  const cache = await caches.open(CACHE)
  const fresh = fetch(SHELL_PAGE, { cache: 'no-cache' })
    .then(async (response) => {
      if (response.ok) await cache.put(SHELL_PAGE, response.clone())
      return response
    })
    .catch(() => undefined)
  const cached = await cache.match(SHELL_PAGE)
  if (cached) {
    event.waitUntil(fresh)
    return cached
  }
  return (
    (await fresh) ??
    new Response(OFFLINE_PAGE, { status: 503, headers: { 'content-type': 'text/html; charset=utf-8' } })
  )
}

/** Hashed files never change: from the cache, or fetched once and kept. */
async function asset(request) {
  const cache = await caches.open(CACHE)
  const cached = await cache.match(request)
  if (cached) return cached
  const response = await fetch(request)
  if (response.ok) await cache.put(request, response.clone())
  return response
}

sw.addEventListener('fetch', (event) => {
  const { request } = event
  if (request.method !== 'GET') return
  const url = new URL(request.url)
  if (url.origin !== sw.location.origin || url.pathname.startsWith(API)) return
  if (request.mode === 'navigate') {
    event.respondWith(shell(event))
    return
  }
  if (url.pathname.startsWith('/assets/')) event.respondWith(asset(request))
})

sw.addEventListener('push', (event) => {
  /** @type {{ title?: string; body?: string; url?: string; tag?: string; commitment?: string; type?: string }} */
  let payload = {}
  try {
    payload = event.data ? event.data.json() : {}
  } catch {
    payload = { body: event.data ? event.data.text() : '' }
  }
  event.waitUntil(
    sw.registration
      .showNotification(payload.title || 'EdgeClub', {
        body: payload.body || '',
        // A repeat of the same step (a retry) replaces the notification instead of adding one.
        tag: payload.tag,
        icon: '/icons/icon-192.png',
        badge: '/icons/badge-96.png',
        data: { url: payload.url || SHELL_PAGE, commitment: payload.commitment },
      })
      .catch((error) => {
        // The device's console (DevTools, the browser's internals page) says why a pick did not show.
        console.error('EdgeClub: a notification could not be shown', error)
        throw error
      }),
  )
})

sw.addEventListener('notificationclick', (event) => {
  event.notification.close()
  // The pick's place in this site's dashboard (whatever origin the server named); nothing else opens.
  const target = new URL(event.notification.data?.url || SHELL_PAGE, sw.location.origin)
  const path = target.pathname.startsWith(SHELL_PAGE) ? `${target.pathname}${target.search}` : SHELL_PAGE
  const url = new URL(path, sw.location.origin).href
  event.waitUntil(
    (async () => {
      const windows = await sw.clients.matchAll({ type: 'window', includeUncontrolled: true })
      const open = windows.find((client) => new URL(client.url).pathname.startsWith(SHELL_PAGE))
      if (open) {
        await open.focus()
        await open.navigate(url)
        return
      }
      await sw.clients.openWindow(url)
    })(),
  )
})
