import type { PublishData, SettleData, SignalContent, VoidData } from '@edgeclub/shared'
import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely'

/** Row types of the database. Migrations are the source of truth; keep these in step with them. */

type Timestamp = ColumnType<Date, Date | string, Date | string>
/** A nullable timestamp column added later: null unless set (inserts may leave it out). */
type OptionalTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
/** A timestamp column with a database default (now()). */
type DefaultTimestamp = ColumnType<Date, Date | string | undefined, Date | string>
/** jsonb columns are written as JSON text (pg would send a JS array as a PostgreSQL array). */
type Json<T> = ColumnType<T, string, string>

export interface PlansTable {
  id: Generated<string>
  name: string
  slug: string
  description: string
  price_minor: number
  currency: string
  interval: 'week' | 'month' | 'year' | 'lifetime'
  interval_count: number
  features: Json<string[]>
  is_popular: boolean
  sort_order: number
  is_active: Generated<boolean>
  archived_at: Timestamp | null
  stripe_product_id: string | null
  stripe_price_id: string | null
  /** Free days before the first charge of a recurring plan (0: no trial). */
  trial_days: Generated<number>
  created_at: DefaultTimestamp
  updated_at: DefaultTimestamp
}
export type PlanRow = Selectable<PlansTable>
export type NewPlanRow = Insertable<PlansTable>
export type PlanUpdate = Updateable<PlansTable>

export interface ContactMessagesTable {
  id: Generated<string>
  name: string
  email: string
  subject: string
  message: string
  ip: string | null
  created_at: DefaultTimestamp
  emailed_at: Timestamp | null
}

export interface UsersTable {
  id: Generated<string>
  email: string
  email_normalized: string
  password_hash: string
  first_name: string
  last_name: string
  discord_username: string
  trading_interests: string | null
  email_updates: Generated<boolean>
  agreed_terms_at: Timestamp | null
  age_confirmed_at: Timestamp | null
  role: Generated<'member' | 'analyst' | 'admin'>
  disabled_at: Timestamp | null
  password_changed_at: Timestamp | null
  stripe_customer_id: string | null
  /** When the member started their one free trial (never again, on any plan). */
  trial_used_at: OptionalTimestamp
  created_at: DefaultTimestamp
  updated_at: DefaultTimestamp
}
export type UserRow = Selectable<UsersTable>

export interface SessionsTable {
  id: Generated<string>
  user_id: string
  remember: boolean
  user_agent: string | null
  ip: string | null
  created_at: DefaultTimestamp
  last_used_at: DefaultTimestamp
  revoked_at: Timestamp | null
  revoke_reason: string | null
}

export interface RefreshTokensTable {
  id: Generated<string>
  session_id: string
  token_hash: string
  expires_at: Timestamp
  used_at: Timestamp | null
  created_at: DefaultTimestamp
}

export interface PasswordResetsTable {
  id: Generated<string>
  user_id: string
  /** The request this link answers; its email's retries reuse the link instead of making another. */
  request_key: string | null
  token_hash: string
  expires_at: Timestamp
  used_at: Timestamp | null
  created_at: DefaultTimestamp
}

export interface LoginFailuresTable {
  id: Generated<string>
  email_normalized: string
  ip: string | null
  created_at: DefaultTimestamp
}

export type PaymentKind = 'subscription' | 'renewal' | 'lifetime' | 'tip' | 'grant' | 'upgrade'
export type PaymentProvider = 'stripe' | 'crypto' | 'admin'
export type PaymentStatus =
  | 'pending'
  | 'completed'
  | 'failed'
  | 'cancelled'
  | 'refunded'
  | 'partially_refunded'

export interface PaymentsTable {
  id: Generated<string>
  user_id: string
  plan_id: string | null
  kind: PaymentKind
  provider: Generated<PaymentProvider>
  status: PaymentStatus
  amount_minor: number
  amount_refunded_minor: Generated<number>
  currency: string
  message: string | null
  failure_message: string | null
  stripe_payment_intent_id: string | null
  stripe_client_secret: string | null
  stripe_invoice_id: string | null
  stripe_subscription_id: string | null
  stripe_charge_id: string | null
  btcpay_invoice_id: string | null
  checkout_url: string | null
  expires_at: Timestamp | null
  created_at: DefaultTimestamp
  updated_at: DefaultTimestamp
  completed_at: Timestamp | null
  promo_code_id: Generated<string | null>
  /** What the promo code took off this payment (minor units). */
  discount_minor: Generated<number>
  stripe_setup_intent_id: Generated<string | null>
}
export type PaymentRow = Selectable<PaymentsTable>

export type SubscriptionStatus = 'active' | 'past_due' | 'paused' | 'cancelled' | 'expired'

export interface SubscriptionsTable {
  id: Generated<string>
  user_id: string
  plan_id: string
  provider: PaymentProvider
  status: SubscriptionStatus
  start_date: Timestamp
  end_date: Timestamp | null
  grace_until: Timestamp | null
  cancel_at_period_end: Generated<boolean>
  cancelled_at: Timestamp | null
  ended_at: Timestamp | null
  stripe_subscription_id: string | null
  renewal_reminder_for: Timestamp | null
  /** The end of a free trial (the first period, unpaid); null for a subscription that had none. */
  trial_ends_at: OptionalTimestamp
  /** Paused: no access from the end of the paid period (paused_at) until resumes_at. */
  paused_at: OptionalTimestamp
  resumes_at: OptionalTimestamp
  /** A downgrade waiting for the renewal (a Stripe subscription schedule). */
  scheduled_plan_id: Generated<string | null>
  scheduled_change_at: OptionalTimestamp
  stripe_schedule_id: Generated<string | null>
  created_at: DefaultTimestamp
  updated_at: DefaultTimestamp
}
export type SubscriptionRow = Selectable<SubscriptionsTable>

export interface SubscriptionPeriodsTable {
  id: Generated<string>
  subscription_id: string
  payment_id: string
  start_date: Timestamp
  end_date: Timestamp | null
  created_at: DefaultTimestamp
}

export interface WebhookEventsTable {
  id: string
  provider: string
  type: string
  received_at: DefaultTimestamp
  processed_at: Timestamp | null
  attempts: Generated<number>
  last_error: string | null
}

export interface AuditLogTable {
  id: Generated<string>
  actor_id: string | null
  actor_email: string | null
  action: string
  target_type: string
  target_id: string | null
  outcome: 'success' | 'failure'
  details: Json<Record<string, unknown>>
  created_at: DefaultTimestamp
}

export type DiscordLinkState = 'unlinked' | 'invited' | 'joined' | 'removed' | 'kicked' | 'banned'

export interface DiscordLinksTable {
  user_id: string
  discord_user_id: string | null
  state: Generated<DiscordLinkState>
  role_granted: Generated<boolean>
  banned_at: Timestamp | null
  last_synced_at: Timestamp | null
  last_error: string | null
  updated_at: DefaultTimestamp
}
export type DiscordLinkRow = Selectable<DiscordLinksTable>

/** A Discord account a member proved is theirs (OAuth2); disconnected ones stay as history. */
export interface DiscordConnectionsTable {
  id: Generated<string>
  user_id: string
  discord_user_id: string
  username: string
  verified_at: Timestamp
  disconnected_at: Timestamp | null
  created_at: DefaultTimestamp
}
export type DiscordConnectionRow = Selectable<DiscordConnectionsTable>

/** One Connect Discord attempt: its OAuth2 state, hashed, single use, bound to a member. */
export interface DiscordOauthStatesTable {
  id: Generated<string>
  state_hash: string
  user_id: string
  created_at: DefaultTimestamp
  expires_at: Timestamp
  used_at: Timestamp | null
  /** PKCE S256 challenge of the attempt (null for attempts started before PKCE). */
  code_challenge: string | null
}

export interface DiscordInvitesTable {
  id: Generated<string>
  user_id: string
  code: string
  max_uses: number
  expires_at: Timestamp
  revoked_at: Timestamp | null
  created_at: DefaultTimestamp
}

export interface JobEffectsTable {
  key: string
  queue: string
  done_at: DefaultTimestamp
}

export interface BroadcastsTable {
  id: string
  title: string | null
  message: string
  also_email: boolean
  author_id: string | null
  created_at: DefaultTimestamp
}

export interface BroadcastDeliveriesTable {
  broadcast_id: string
  channel: string
  status: 'sent' | 'queued'
  external_id: string | null
  recipients: number | null
  created_at: DefaultTimestamp
}

export interface MailDeliveriesTable {
  key: string
  message_id: string
  state: 'sending' | 'accepted' | 'failed'
  attempts: number
  started_at: DefaultTimestamp
  accepted_at: Timestamp | null
}

export interface ReconciliationIssuesTable {
  id: Generated<string>
  rail: 'card' | 'crypto'
  object_id: string
  kind: string
  amount_minor: number | null
  currency: string | null
  detail: string
  first_seen_at: DefaultTimestamp
  last_seen_at: DefaultTimestamp
  resolved_at: Timestamp | null
}

export interface SignalsTable {
  id: Generated<string>
  kind: 'pick' | 'signal'
  /** Exactly what the commitment covers, as validated by the shared signal schema. */
  content: ColumnType<SignalContent, string, never>
  salt: string
  commitment: string
  category: string
  starts_at: Timestamp | null
  expires_at: Timestamp | null
  stake: ColumnType<number, number, never>
  status: Generated<'open' | 'settled' | 'void'>
  result: 'won' | 'lost' | 'push' | 'closed' | null
  profit_units: number | null
  exit_price: number | null
  void_reason: string | null
  published_seq: ColumnType<number, number, never>
  published_by: string | null
  settled_by: string | null
  published_at: Timestamp
  settled_at: Timestamp | null
}
export type SignalRow = Selectable<SignalsTable>

export interface SignalLedgerTable {
  seq: number
  type: 'publish' | 'settle' | 'void'
  signal_id: string
  at: string
  prev_hash: string
  hash: string
  data: ColumnType<PublishData | SettleData | VoidData, string, never>
}
export type SignalLedgerRow = Selectable<SignalLedgerTable>

/** A signed head of the record's Merkle tree at one ledger size (RFC 9162). */
export interface LedgerHeadsTable {
  size: ColumnType<number, number, never>
  root_hash: string
  timestamp: ColumnType<number, number, never>
  signature: string
}
export type LedgerHeadRow = Selectable<LedgerHeadsTable>

/** The club's generated Ed25519 key on PostgreSQL without LEDGER_SIGNING_KEY (one row). */
export interface LedgerSigningKeyTable {
  id: number
  seed: string
  public_key: string
  created_at: Generated<Date>
}

export interface PromoCodesTable {
  id: Generated<string>
  code: string
  /** numeric(5,2) reads back as text from PostgreSQL. */
  percent_off: ColumnType<string | null, number | null, number | null>
  amount_off_minor: number | null
  currency: string | null
  duration: 'once' | 'repeating' | 'forever'
  duration_in_months: number | null
  audience: Generated<'anyone' | 'new' | 'returning'>
  plan_ids: string[] | null
  expires_at: Timestamp | null
  max_redemptions: number | null
  active: Generated<boolean>
  stripe_coupon_id: string | null
  stripe_promotion_code_id: string | null
  created_by: string | null
  created_at: DefaultTimestamp
  deactivated_at: Timestamp | null
}
export type PromoCodeRow = Selectable<PromoCodesTable>

export interface PromoRedemptionsTable {
  id: Generated<string>
  promo_code_id: string
  user_id: string
  payment_id: string | null
  status: 'held' | 'redeemed' | 'released'
  created_at: DefaultTimestamp
  redeemed_at: Timestamp | null
}

export interface TrialCardsTable {
  fingerprint: string
  user_id: string
  created_at: DefaultTimestamp
}

export interface CancellationReasonsTable {
  id: Generated<string>
  user_id: string
  subscription_id: string | null
  reason: string
  detail: string | null
  offer: 'code' | 'pause' | null
  outcome: 'cancelled' | 'kept'
  created_at: DefaultTimestamp
}

export interface BillingSettingsTable {
  id: Generated<boolean>
  retention_promo_code_id: string | null
  retention_offers_pause: Generated<boolean>
  updated_at: DefaultTimestamp
}

/** The owner's marketing claims (one row at most; null texts mean the pages' defaults). */
export interface SiteClaimsTable {
  id: Generated<boolean>
  members: string | null
  ai_accuracy: string | null
  win_rate: string | null
  track_record: string | null
  show_record_figures: Generated<boolean>
  updated_at: DefaultTimestamp
}

export interface BillingMovementsTable {
  day: ColumnType<string, string, string>
  kind:
    | 'trial_started'
    | 'trial_converted'
    | 'trial_ended'
    | 'new'
    | 'reactivated'
    | 'expansion'
    | 'contraction'
    | 'churned'
  mrr_minor: ColumnType<number, number | undefined, number>
  n: ColumnType<number, number | undefined, number>
}

export type PlaceKind = 'discord_role' | 'telegram_chat'

/** A Discord role or Telegram chat the club's plans can grant. */
export interface PlacesTable {
  id: Generated<string>
  kind: PlaceKind
  /** The Discord role id, or the Telegram chat id. */
  external_id: string
  title: string
  /** Telegram chats: the signal categories posted there (null: all). */
  signal_categories: Json<string[]> | null
  created_at: DefaultTimestamp
  archived_at: Timestamp | null
}
export type PlaceRow = Selectable<PlacesTable>

/** What a plan grants per kind: null is every place of the kind, else place ids (categories: names). */
export interface PlanPlacesTable {
  plan_id: string
  discord_roles: Json<string[]> | null
  telegram_chats: Json<string[]> | null
  signal_categories: Json<string[]> | null
  updated_at: DefaultTimestamp
}
export type PlanPlacesRow = Selectable<PlanPlacesTable>

/** A Telegram account a member tied to their membership through the bot's deep link. */
export interface TelegramAccountsTable {
  id: Generated<string>
  user_id: string
  telegram_user_id: string
  username: string | null
  first_name: string
  /** It was another member's until it was connected here. */
  moved: Generated<boolean>
  connected_at: Timestamp
  /** When the bot answered the Start that connected it (with the chat links). */
  welcomed_at: Timestamp | null
  disconnected_at: Timestamp | null
}
export type TelegramAccountRow = Selectable<TelegramAccountsTable>

export interface TelegramConnectTokensTable {
  id: Generated<string>
  token_hash: string
  user_id: string
  created_at: DefaultTimestamp
  expires_at: Timestamp
  used_at: Timestamp | null
}

export interface TelegramMembersTable {
  user_id: string
  reminders: Generated<boolean>
  banned_at: Timestamp | null
  banned_telegram_user_id: string | null
  updated_at: DefaultTimestamp
}
export type TelegramMemberRow = Selectable<TelegramMembersTable>

export type TelegramChatState = 'link-sent' | 'member' | 'removed' | 'declined' | 'banned'

export interface TelegramChatMembersTable {
  user_id: string
  place_id: string
  telegram_user_id: string | null
  state: TelegramChatState
  invite_link: string | null
  joined_at: Timestamp | null
  updated_at: DefaultTimestamp
}
export type TelegramChatMemberRow = Selectable<TelegramChatMembersTable>

export interface TelegramSendBucketsTable {
  scope: string
  tokens: number
  refilled_at: Timestamp
}

/** One browser a member turned notifications on in (decision 023). */
export interface PushSubscriptionsTable {
  id: Generated<string>
  user_id: string
  endpoint: string
  p256dh: string
  auth: string
  kinds: Json<('picks' | 'signals' | 'results')[]>
  sports: Json<string[]>
  created_at: DefaultTimestamp
}
export type PushSubscriptionRow = Selectable<PushSubscriptionsTable>

/** The VAPID key pair made by the first instance when no VAPID_* variables are set. */
export interface PushVapidKeysTable {
  id: number
  public_key: string
  private_key: string
  created_at: DefaultTimestamp
}

export interface DB {
  audit_log: AuditLogTable
  broadcasts: BroadcastsTable
  broadcast_deliveries: BroadcastDeliveriesTable
  discord_links: DiscordLinksTable
  discord_invites: DiscordInvitesTable
  discord_connections: DiscordConnectionsTable
  discord_oauth_states: DiscordOauthStatesTable
  payments: PaymentsTable
  promo_codes: PromoCodesTable
  promo_redemptions: PromoRedemptionsTable
  trial_cards: TrialCardsTable
  cancellation_reasons: CancellationReasonsTable
  billing_settings: BillingSettingsTable
  billing_movements: BillingMovementsTable
  site_claims: SiteClaimsTable
  subscriptions: SubscriptionsTable
  subscription_periods: SubscriptionPeriodsTable
  webhook_events: WebhookEventsTable
  plans: PlansTable
  contact_messages: ContactMessagesTable
  users: UsersTable
  sessions: SessionsTable
  refresh_tokens: RefreshTokensTable
  password_resets: PasswordResetsTable
  login_failures: LoginFailuresTable
  job_effects: JobEffectsTable
  mail_deliveries: MailDeliveriesTable
  reconciliation_issues: ReconciliationIssuesTable
  signals: SignalsTable
  signal_ledger: SignalLedgerTable
  ledger_heads: LedgerHeadsTable
  ledger_signing_key: LedgerSigningKeyTable
  places: PlacesTable
  plan_places: PlanPlacesTable
  telegram_accounts: TelegramAccountsTable
  telegram_connect_tokens: TelegramConnectTokensTable
  telegram_members: TelegramMembersTable
  telegram_chat_members: TelegramChatMembersTable
  telegram_send_buckets: TelegramSendBucketsTable
  push_subscriptions: PushSubscriptionsTable
  push_vapid_keys: PushVapidKeysTable
}
