import type { PushPreferences } from '@edgeclub/shared'
import { useQuery } from '@tanstack/react-query'
import { apiRequest } from '../../lib/api-client'
import { getClientConfig } from '../../lib/client-config'
import { contract } from '../../lib/contract'
import { activeDashboardWorker } from '../../lib/service-worker'

export const pushKeys = { settings: ['push-settings'] as const }

export function usePushSettings() {
  return useQuery({
    queryKey: pushKeys.settings,
    queryFn: async () => {
      const result = await apiRequest('/push/preferences', { schema: contract('PushSettingsSchema') })
      if (!result.success || !result.data)
        throw new Error(result.error ?? 'Could not load your notifications')
      return result.data
    },
  })
}

/** Whether this browser can show notifications from the dashboard at all. */
export function pushSupported(): boolean {
  return (
    typeof window !== 'undefined' &&
    'serviceWorker' in navigator &&
    'PushManager' in window &&
    'Notification' in window
  )
}

/** The endpoint of this browser's subscription, remembered for a stand-in push service (no PushManager one). */
const STAND_IN_KEY = 'edgeclub.push.stand-in'

/** This browser's subscription, if notifications are on here. */
export async function currentSubscription(): Promise<{ endpoint: string } | null> {
  const config = await getClientConfig().catch(() => null)
  if (config?.pushStandInUrl) {
    const stored = localStorage.getItem(STAND_IN_KEY)
    return stored ? { endpoint: stored } : null
  }
  const registration = await navigator.serviceWorker.getRegistration()
  const subscription = await registration?.pushManager.getSubscription()
  return subscription ? { endpoint: subscription.endpoint } : null
}

type Outcome = { ok: true } | { ok: false; message: string }

/**
 * Turns notifications on here: the permission, the dashboard's service worker, a subscription at the
 * browser's push service (or, when the server names one outside production, at the stand-in push
 * service), then the server keeps it with the member's choices.
 */
export async function turnOn(preferences: PushPreferences): Promise<Outcome> {
  const permission = await Notification.requestPermission()
  if (permission !== 'granted')
    return {
      ok: false,
      message:
        'Notifications are blocked for this site. Allow them in your browser’s site settings, then try again.',
    }
  const registration = await activeDashboardWorker()
  if (!registration)
    return {
      ok: false,
      message: 'This browser could not start the dashboard’s service worker. Reload and try again.',
    }
  const key = await apiRequest('/push/key', { schema: contract('PushKeySchema') })
  if (!key.success || !key.data) return { ok: false, message: key.error ?? 'Could not reach EdgeClub.' }
  const config = await getClientConfig().catch(() => null)
  let subscription: { endpoint: string; keys: { p256dh: string; auth: string } }
  try {
    subscription = config?.pushStandInUrl
      ? await standInSubscribe(config.pushStandInUrl, key.data.publicKey)
      : await browserSubscribe(registration, key.data.publicKey)
  } catch (error) {
    return {
      ok: false,
      message: `This browser could not reach its push service, so notifications cannot be turned on right now (${error instanceof Error ? error.message : String(error)}). Check your connection and try again.`,
    }
  }
  const saved = await apiRequest('/push/subscriptions', {
    method: 'POST',
    body: { subscription, preferences },
    schema: contract('PushSettingsSchema'),
  })
  if (!saved.success) return { ok: false, message: saved.error ?? 'Could not turn notifications on.' }
  if (config?.pushStandInUrl) localStorage.setItem(STAND_IN_KEY, subscription.endpoint)
  return { ok: true }
}

async function browserSubscribe(registration: ServiceWorkerRegistration, publicKey: string) {
  const padded = publicKey.replace(/-/g, '+').replace(/_/g, '/')
  const raw = Uint8Array.from(atob(padded + '='.repeat((4 - (padded.length % 4)) % 4)), (c) =>
    c.charCodeAt(0),
  )
  const subscription = await registration.pushManager.subscribe({
    userVisibleOnly: true,
    applicationServerKey: raw,
  })
  const json = subscription.toJSON()
  if (!json.endpoint || !json.keys?.p256dh || !json.keys.auth)
    throw new Error('the push service gave no keys')
  return { endpoint: json.endpoint, keys: { p256dh: json.keys.p256dh, auth: json.keys.auth } }
}

/** The stand-in push service (the emulator's) makes the subscription a browser's push service would. */
async function standInSubscribe(base: string, publicKey: string) {
  const response = await fetch(`${base}/push/subscribe`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ applicationServerKey: publicKey, label: navigator.userAgent.slice(0, 80) }),
  })
  if (!response.ok) throw new Error(`the push service answered ${response.status}`)
  return (await response.json()) as { endpoint: string; keys: { p256dh: string; auth: string } }
}

/** Turns notifications off here: the server forgets the subscription, the browser drops it. */
export async function turnOff(endpoint: string): Promise<Outcome> {
  const removed = await apiRequest('/push/subscriptions', {
    method: 'DELETE',
    body: { endpoint },
    schema: contract('PushSettingsSchema'),
  })
  localStorage.removeItem(STAND_IN_KEY)
  const registration = await navigator.serviceWorker.getRegistration()
  await (await registration?.pushManager.getSubscription())?.unsubscribe().catch(() => false)
  if (!removed.success && removed.status !== 404)
    return { ok: false, message: removed.error ?? 'Could not turn notifications off.' }
  return { ok: true }
}

export function savePreferences(preferences: PushPreferences) {
  return apiRequest('/push/preferences', {
    method: 'PUT',
    body: preferences,
    schema: contract('PushSettingsSchema'),
  })
}
