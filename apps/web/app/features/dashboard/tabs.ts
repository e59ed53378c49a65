import { RENAMED_DASHBOARD_TABS } from '@edgeclub/shared'

/** The dashboard's sidebar tabs, in order. The URL keeps the open tab (?tab=settings). */
export const DASHBOARD_TABS = [
  { id: 'overview', label: 'Overview' },
  { id: 'signals', label: 'Signals' },
  { id: 'subscription', label: 'Subscription' },
  { id: 'payments', label: 'Payment History' },
  { id: 'tip', label: 'Send Tip' },
  { id: 'community', label: 'Community' },
  { id: 'settings', label: 'Settings' },
] as const
export type DashboardTab = (typeof DASHBOARD_TABS)[number]['id']

export function tabFrom(value: string | null): DashboardTab {
  const renamed = value ? RENAMED_DASHBOARD_TABS[value] : undefined
  return DASHBOARD_TABS.find((tab) => tab.id === (renamed ?? value))?.id ?? 'overview'
}
