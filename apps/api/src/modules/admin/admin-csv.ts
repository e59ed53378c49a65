import type { AdminSubscription, AdminUser, PaymentView } from '@edgeclub/shared'
import type { CsvColumn } from '../../lib/csv'

/** The columns of each admin CSV export, in order: what an operator's spreadsheet gets. */
export const MEMBER_COLUMNS: CsvColumn<AdminUser>[] = [
  { header: 'id', value: (u) => u.id },
  { header: 'email', value: (u) => u.email },
  { header: 'first_name', value: (u) => u.firstName },
  { header: 'last_name', value: (u) => u.lastName },
  { header: 'discord_username', value: (u) => u.discordUsername },
  { header: 'discord_verified', value: (u) => u.discord.verified },
  { header: 'role', value: (u) => u.role },
  { header: 'has_access', value: (u) => u.hasAccess },
  { header: 'disabled', value: (u) => u.disabled },
  { header: 'created_at', value: (u) => u.createdAt },
]

export const SUBSCRIPTION_COLUMNS: CsvColumn<AdminSubscription>[] = [
  { header: 'id', value: (s) => s.id },
  { header: 'member', value: (s) => s.userEmail },
  { header: 'plan', value: (s) => s.planId.name },
  { header: 'status', value: (s) => s.status },
  { header: 'provider', value: (s) => s.provider },
  { header: 'start_date', value: (s) => s.startDate },
  { header: 'end_date', value: (s) => s.endDate },
  { header: 'cancel_at_period_end', value: (s) => s.cancelAtPeriodEnd },
]

export const PAYMENT_COLUMNS: CsvColumn<PaymentView>[] = [
  { header: 'id', value: (p) => p.id },
  { header: 'member', value: (p) => p.userEmail },
  { header: 'kind', value: (p) => p.kind },
  { header: 'plan', value: (p) => p.planId?.name },
  { header: 'amount', value: (p) => p.amount.toFixed(2) },
  { header: 'refunded', value: (p) => p.amountRefunded.toFixed(2) },
  { header: 'currency', value: (p) => p.currency },
  { header: 'status', value: (p) => p.status },
  { header: 'provider', value: (p) => p.provider },
  { header: 'created_at', value: (p) => p.createdAt },
]
