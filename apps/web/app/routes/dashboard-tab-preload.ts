import type { DashboardTab } from '../features/dashboard/tabs'
import type { BootRequest } from '../lib/dashboard-boot'

/**
 * What the dashboard page's boot script (lib/dashboard-boot.ts) asks for while the app's own
 * scripts are still arriving, per open tab. Unit tests keep both lists in step with the code.
 */

/**
 * The modules each tab imports when it opens (routes/dashboard-tabs.tsx), relative to app/: the
 * build looks their chunks up (vite.config.ts) and the boot script preloads the open tab's.
 */
export const TAB_MODULES: Readonly<Record<DashboardTab, readonly string[]>> = {
  overview: ['features/dashboard/overview-tab.tsx'],
  // The witness check (loaded after the first paint) is the Signals tab's largest content.
  signals: ['features/signals/signals-tab.tsx', 'features/signals/record-witness-check.ts'],
  subscription: ['features/subscriptions/subscription-tab.tsx'],
  payments: ['features/payments/history-tab.tsx'],
  tip: ['features/tips/tip-tab.tsx'],
  community: ['features/community/community-tab.tsx'],
  settings: [
    'features/settings/settings-tab.tsx',
    'features/settings/notifications-panel.tsx',
    'features/community/discord-connection.tsx',
    'features/community/telegram-card.tsx',
  ],
}

/**
 * The data a tab's first screen waits for, asked for with the session check: the Subscription tab
 * shows its plans once the membership above them is known (its status and the plans on sale), the
 * Signals tab its feed once the member's access is known, Payment History its payments with the
 * plans they name. Each path is exactly what the app asks (the unit test holds them to the API
 * modules).
 */
const status: BootRequest = { path: '/subscriptions/status', auth: true }
const plans: BootRequest = { path: '/admin/plans/public/active', auth: false }
/** Asked on every tab: the session check (lib/session-guard.tsx). */
export const SESSION_CHECK: BootRequest = { path: '/auth/profile', auth: true }
/** The tab opened without ?tab= or with an unknown one (features/dashboard/tabs.ts, tabFrom). */
export const FALLBACK_TAB: DashboardTab = 'overview'
export const TAB_REQUESTS: Readonly<Partial<Record<DashboardTab, readonly BootRequest[]>>> = {
  // Not what a screen can show a moment later, after its first paint: whether crypto is offered (the
  // Subscription tab's crypto button), the record key and head the Signals tab's witness check reads.
  // On a phone each request ahead of the first screen waits its turn for one of six connections.
  subscription: [status, plans],
  signals: [status, { path: '/signals?limit=20', auth: true }],
  payments: [
    status,
    { path: '/payments/history?page=1&limit=10&sortBy=createdAt&sortOrder=desc', auth: true },
    plans,
  ],
}
