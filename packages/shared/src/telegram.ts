import { z } from 'zod'

/** How long a Connect Telegram link (its start token) can be used, once. */
export const TELEGRAM_CONNECT_MINUTES = 10

/** Connect Telegram attempts a member may start in an hour. */
export const TELEGRAM_CONNECTS_PER_HOUR = 10

/** What members read about Telegram, in the dashboard and from the API. */
export const telegramMessages = {
  notConfigured: 'Telegram is not connected yet. Please try again later or contact support.',
  banned: 'Your Telegram access has been suspended. Please contact support.',
  tooManyAttempts: 'Too many Telegram connection attempts. Please wait a while and try again.',
  notConnected: 'No Telegram account is connected.',
  connectHint:
    'Open the link, press Start in Telegram, and the EdgeClub bot ties your Telegram account to this membership. The link works once, for a few minutes.',
  disconnected: (name: string) => `Disconnected ${name}. You are being removed from the EdgeClub chats.`,
  reminders: 'Send my renewal and failed-payment reminders on Telegram too',
} as const

/** POST /telegram/connect: a one-time deep link to the bot (`https://t.me/<bot>?start=<token>`). */
export const TelegramConnectSchema = z.object({ url: z.string(), expiresAt: z.string() })
export type TelegramConnect = z.infer<typeof TelegramConnectSchema>

/** One chat the member's plan grants: whether they are in it, and their personal join link if not. */
export const TelegramChatStatusSchema = z.object({
  title: z.string(),
  member: z.boolean(),
  /** A link that creates a join request only the member's own account gets approved (null: in, or none yet). */
  inviteLink: z.string().nullable(),
})
export type TelegramChatStatus = z.infer<typeof TelegramChatStatusSchema>

/** GET /telegram/status. */
export const TelegramStatusSchema = z.object({
  /** TELEGRAM_BOT_TOKEN is set on this server. */
  configured: z.boolean(),
  connected: z.boolean(),
  /** The connected account's @username (or first name when it has none). */
  username: z.string().optional(),
  chats: z.array(TelegramChatStatusSchema),
  /** Renewal and failed-payment reminders also go to Telegram. */
  reminders: z.boolean(),
  banned: z.boolean(),
})
export type TelegramStatus = z.infer<typeof TelegramStatusSchema>

/** PUT /telegram/settings. */
export const TelegramSettingsSchema = z.object({ reminders: z.boolean() })

export const TelegramDisconnectResultSchema = z.object({ username: z.string() })

/** POST /webhooks/telegram: the acknowledgement Telegram gets (it reads only the status). */
export const TelegramWebhookAckSchema = z.object({ received: z.literal(true) })
