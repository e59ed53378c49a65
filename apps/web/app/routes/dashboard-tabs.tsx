import { type ComponentType, lazy } from 'react'
import { type DashboardTab, tabFrom } from '../features/dashboard/tabs'
import { startSessionCheck } from '../lib/session-guard'

/**
 * Each tab is its own chunk, loaded when it opens: a member on a phone downloads and parses the tab
 * they look at, not the nine others (the tip form's card fields, the admin-grade settings, ...).
 */
const loaders: Record<DashboardTab, () => Promise<ComponentType>> = {
  overview: () => import('../features/dashboard/overview-tab').then((m) => m.OverviewTab),
  signals: () => import('../features/signals/signals-tab').then((m) => m.SignalsTab),
  subscription: () => import('../features/subscriptions/subscription-tab').then((m) => m.SubscriptionTab),
  payments: () => import('../features/payments/history-tab').then((m) => m.PaymentHistoryTab),
  tip: () => import('../features/tips/tip-tab').then((m) => m.TipTab),
  community: () => import('../features/community/community-tab').then((m) => m.CommunityTab),
  settings: async () => {
    const [{ SettingsTab }, { NotificationsPanel }, { DiscordSettingsPanel }, { TelegramSettingsPanel }] =
      await Promise.all([
        import('../features/settings/settings-tab'),
        import('../features/settings/notifications-panel'),
        import('../features/community/discord-connection'),
        import('../features/community/telegram-card'),
      ])
    return () => (
      <SettingsTab
        panels={
          <>
            <NotificationsPanel />
            <DiscordSettingsPanel />
            <TelegramSettingsPanel />
          </>
        }
      />
    )
  },
}

const loading = new Map<DashboardTab, Promise<ComponentType>>()
const loaded = new Map<DashboardTab, ComponentType>()

/** Starts loading a tab's chunk (once; a failed load is tried again next time). */
export function loadTab(tab: DashboardTab): Promise<ComponentType> {
  let promise = loading.get(tab)
  if (!promise) {
    promise = loaders[tab]().then((component) => {
      loaded.set(tab, component)
      return component
    })
    promise.catch(() => loading.delete(tab))
    loading.set(tab, promise)
  }
  return promise
}

/**
 * A tab whose chunk is already here renders at once instead of suspending: React.lazy reads a
 * thenable that calls back synchronously without waiting, and React shows the fallback and holds the
 * content back for its minimum fallback time (300 ms) only when it has to wait.
 */
export const tabs = {} as Record<DashboardTab, ComponentType>
for (const tab of Object.keys(loaders) as DashboardTab[])
  tabs[tab] = lazy(() => {
    const component = loaded.get(tab)
    if (!component) return loadTab(tab).then((loadedTab) => ({ default: loadedTab }))
    const ready = { default: component }
    // biome-ignore lint/suspicious/noThenProperty: React.lazy takes a thenable; this one answers at once, so the tab renders without suspending
    return { then: (resolve: (value: typeof ready) => void) => resolve(ready) } as Promise<typeof ready>
  })

/**
 * A page opened at the dashboard (root.tsx) asks for the open tab's code (Vite preloads a dynamic
 * import's dependencies together) and checks the session at once, while the route's code loads,
 * instead of the router starting, then the session check, then the tab's code; the dashboard shows
 * once both are here (lib/session-guard.tsx). The page's boot script (lib/dashboard-boot.ts) has
 * usually sent both requests already, and the GETs some tabs' first screen waits for
 * (routes/dashboard-tab-preload.ts). The tab's data is not asked for here: asked for by the app's
 * code at this point, it came back with the session check and the first render, frame, sidebar and
 * tab with its data, became one long task on a phone.
 */
export function openDashboard(search: string): void {
  startSessionCheck(loadTab(tabFrom(new URLSearchParams(search).get('tab'))))
}
