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
 * shows its plans once the membership above them is known (its status, the plans on sale, and
 * whether crypto is offered), the Signals tab its feed once the member's access is known, Payment
 * History its payments with the plans they name. Each path is exactly what the app asks (the unit
 * test holds them to the API modules).
 */
const status: BootRequest = { path: '/subscriptions/status', auth: true }
const plans: BootRequest = { path: '/admin/plans/public/active', auth: false }
/** Asked on every tab: the session check (lib/session-guard.tsx). */
export const SESSION_CHECK: BootRequest = { path: '/auth/profile', auth: true }
/** The tab opened without ?tab= or with an unknown one (features/dashboard/tabs.ts, tabFrom). */
export const FALLBACK_TAB: DashboardTab = 'overview'
export const TAB_REQUESTS: Readonly<Partial<Record<DashboardTab, readonly BootRequest[]>>> = {
  subscription: [status, plans, { path: '/config', auth: false }],
  // The witness check's record key and head (features/signals/record-witness-check.ts): its
  // verdict, the tab's largest text, follows the first paint once they are here.
  signals: [
    status,
    { path: '/signals?limit=20', auth: true },
    { path: '/record/key', auth: false, fresh: true },
    { path: '/record/head', auth: false, fresh: true },
  ],
  payments: [
    status,
    { path: '/payments/history?page=1&limit=10&sortBy=createdAt&sortOrder=desc', auth: true },
    plans,
  ],
}
