import { PlanSchema } from '@edgeclub/shared'
import { z } from 'zod'

/**
 * The schemas the member screens check the API's answers with, by name (lib/contract.ts): this
 * module, and zod with it, is loaded when an answer is first checked, never on the first load.
 */
export {
  AccessStatusSchema,
  AuthSessionSchema,
  CancelResultSchema,
  CardSetupSchema,
  CardUpdateResultSchema,
  ChangePlanPreviewSchema,
  ChangePlanResultSchema,
  CryptoCheckoutSchema,
  DiscordConnectResultSchema,
  DiscordConnectStartSchema,
  DiscordDisconnectResultSchema,
  DiscordInviteSchema,
  DiscordStatusSchema,
  PasswordChangedSchema,
  PauseResultSchema,
  PaymentConfirmationSchema,
  PaymentIntentSchema,
  PaymentPageSchema,
  PaymentSummarySchema,
  PromoQuoteSchema,
  PublicUserSchema,
  PushKeySchema,
  PushSettingsSchema,
  RecordSchema,
  RenewResultSchema,
  RetentionOfferSchema,
  ShownClaimsSchema,
  SignalEventSchema,
  SignalPageSchema,
  SignalViewSchema,
  TelegramConnectSchema,
  TelegramDisconnectResultSchema,
  TelegramStatusSchema,
  TipIntentSchema,
  TipSchema,
  UnpauseResultSchema,
} from '@edgeclub/shared'

/** GET /admin/plans/public/active, as the member area reads it: every plan checked. */
export const ActivePlansSchema = PlanSchema.array()
/** DELETE /subscriptions/change-plan: the scheduled plan change undone. */
export const PlanChangeUndoneSchema = z.object({ undone: z.boolean() })
/** POST /subscriptions/retention/accept. */
export const RetentionAcceptedSchema = z.object({ kept: z.boolean(), resumesAt: z.string().nullable() })
