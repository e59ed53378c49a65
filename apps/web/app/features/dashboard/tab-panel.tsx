import { DiscordTab } from '../community/discord-tab'
import { PaymentHistoryTab } from '../payments/history-tab'
import { SettingsTab } from '../settings/settings-tab'
import { SubscriptionTab } from '../subscriptions/subscription-tab'
import { TipTab } from '../tips/tip-tab'
import { OverviewTab } from './overview-tab'
import type { DashboardTab } from './tabs'

export function DashboardTabPanel({ tab }: { tab: DashboardTab }) {
  switch (tab) {
    case 'subscription':
      return <SubscriptionTab />
    case 'payments':
      return <PaymentHistoryTab />
    case 'tip':
      return <TipTab />
    case 'discord':
      return <DiscordTab />
    case 'settings':
      return <SettingsTab />
    default:
      return <OverviewTab />
  }
}
