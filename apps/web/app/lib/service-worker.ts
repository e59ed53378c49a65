import { serviceWorker } from '@edgeclub/shared'

/**
 * The dashboard's service worker (built to /sw.js; decision 023): registered by the signed-in
 * dashboard only, with the scope /dashboard, so public pages never load or run it. Production builds
 * only: the dev server has no /sw.js.
 */
export function registerDashboardWorker(): Promise<ServiceWorkerRegistration | undefined> {
  if (!import.meta.env.PROD || typeof navigator === 'undefined' || !('serviceWorker' in navigator))
    return Promise.resolve(undefined)
  return navigator.serviceWorker
    .register(serviceWorker.script, { scope: serviceWorker.scope })
    .catch(() => undefined)
}

/** The registration once its worker is active (what PushManager.subscribe needs). */
export async function activeDashboardWorker(): Promise<ServiceWorkerRegistration | undefined> {
  const registration = await registerDashboardWorker()
  if (!registration) return undefined
  if (registration.active) return registration
  const worker = registration.installing ?? registration.waiting
  if (worker)
    await new Promise<void>((resolve) => {
      const check = () => {
        if (worker.state === 'activated' || worker.state === 'redundant') {
          worker.removeEventListener('statechange', check)
          resolve()
        }
      }
      worker.addEventListener('statechange', check)
      check()
    })
  return registration.active ? registration : undefined
}
