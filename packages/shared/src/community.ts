import { z } from 'zod'
import { text } from './text'

/** What members and admins read about the Discord community, on both sides. */
export const communityMessages = {
  notConfigured: 'The Discord community is not connected yet. Please try again later or contact support.',
  needsAccess: 'An active subscription is required to join the Discord community.',
  banned: 'Your Discord access has been suspended. Please contact support.',
  tooManyInvites: 'You have created too many invites today. Use your latest invite, or try again tomorrow.',
  noDiscordUsername: 'Add your Discord username in Settings first, so we can give you the member role.',
  /** A broadcast sent again with the same id: `sent` says what went out the first time. */
  broadcastAlreadySent: (sent: string) =>
    `This broadcast was already sent (${sent}). Nothing was sent again.`,
  alreadyInServer: "You're already in the EdgeClub Discord, with the roles your plan grants.",
} as const

export const DISCORD_LINK_STATES = ['unlinked', 'invited', 'joined', 'removed', 'kicked', 'banned'] as const
export type DiscordLinkState = (typeof DISCORD_LINK_STATES)[number]

/** A single-use invite to the server, made for one member. */
export const DiscordInviteSchema = z.object({
  inviteUrl: z.string(),
  targetUsername: z.string(),
  expiresAt: z.string(),
  maxUses: z.number().int(),
})
export type DiscordInvite = z.infer<typeof DiscordInviteSchema>

/** A Discord account the member proved is theirs through Discord's OAuth2. */
export const DiscordConnectionSchema = z.object({
  discordUserId: z.string(),
  username: z.string(),
  verifiedAt: z.string(),
})
export type DiscordConnection = z.infer<typeof DiscordConnectionSchema>

/** GET /discord/status: what the member's Discord Access tab shows. */
export const DiscordStatusSchema = z.object({
  configured: z.boolean(),
  state: z.enum(DISCORD_LINK_STATES),
  /** The member's account is in the server (they need no invite: "You're in"). */
  inServer: z.boolean(),
  roleGranted: z.boolean(),
  discordUsername: z.string(),
  invite: DiscordInviteSchema.nullable(),
  /** Connect Discord (OAuth2) is set up on this server. */
  connectAvailable: z.boolean(),
  /** Only connected (verified) Discord accounts get the member role. */
  verificationRequired: z.boolean(),
  /** The Discord account the member connected, if any. */
  connection: DiscordConnectionSchema.nullable(),
})
export type DiscordStatus = z.infer<typeof DiscordStatusSchema>

const MODERATION_STATES = ['kicked', 'banned', 'removed'] as const

/**
 * A kick, ban or unban acts in every community the club runs: `discord` and `telegram` say what
 * happened in each (null: not configured, or the member has no account there); `state` is the
 * outcome as a whole.
 */
export const ModerationResultSchema = z.object({
  state: z.enum(MODERATION_STATES),
  discord: z.enum(MODERATION_STATES).nullable().optional(),
  telegram: z.enum(MODERATION_STATES).nullable().optional(),
})
export type ModerationResult = z.infer<typeof ModerationResultSchema>

/** The channels a broadcast goes out on; each reports its own delivery. */
export const BROADCAST_CHANNELS = ['discord', 'email', 'telegram'] as const
export type BroadcastChannel = (typeof BROADCAST_CHANNELS)[number]

/** What one channel did with a broadcast: posted now ('sent'), or one email or Telegram message per recipient queued. */
export const BroadcastDeliverySchema = z.object({
  channel: z.enum(BROADCAST_CHANNELS),
  status: z.enum(['sent', 'queued']),
  /** The channel's id for what it posted (the Discord message), if any. */
  externalId: z.string().nullable(),
  /** How many it went to (emails or Telegram messages queued), if the channel counts recipients. */
  recipients: z.number().int().nullable(),
})
export type BroadcastDelivery = z.infer<typeof BroadcastDeliverySchema>

/**
 * POST /admin/broadcast: the broadcast (its id names it: the same id again is refused as already
 * sent), and what each channel did. `messageId` (null without Discord), `emailed` and `telegram`
 * (when asked for) repeat the Discord, email and Telegram deliveries.
 */
export const BroadcastResultSchema = z.object({
  broadcastId: z.string(),
  sentAt: z.string(),
  messageId: z.string().nullable(),
  emailed: z.number().int(),
  telegram: z.number().int().optional(),
  deliveries: z.array(BroadcastDeliverySchema),
})
export type BroadcastResult = z.infer<typeof BroadcastResultSchema>

/** The bot's setup checks and how many members' roles disagree with their access. */
export const DiscordHealthSchema = z.object({
  ok: z.boolean(),
  checks: z.array(z.object({ name: z.string(), ok: z.boolean(), detail: z.string() })),
  drift: z.object({ missingRole: z.number().int(), extraRole: z.number().int() }),
})
export type DiscordHealth = z.infer<typeof DiscordHealthSchema>

/** How long a Connect Discord attempt (its OAuth2 state) stays usable. */
export const DISCORD_OAUTH_STATE_MINUTES = 10

/** Disconnects a member may make in 24 hours. */
export const DISCORD_DISCONNECTS_PER_DAY = 3

/** Connect Discord (OAuth2): every answer a member can get, worded for them. */
export const discordConnectMessages = {
  notConfigured: 'Connecting Discord is not available yet. Use an invite to join, or contact support.',
  cancelled: 'You cancelled on Discord, so nothing was connected. Click Connect Discord to try again.',
  discordRefused: 'Discord could not complete the connection. Click Connect Discord to try again.',
  stateMissing: 'This Discord connection link is incomplete. Click Connect Discord to start again.',
  stateUnknown: 'This Discord connection link is not valid. Click Connect Discord to start again.',
  stateReused: 'This Discord connection link has already been used. Click Connect Discord to start again.',
  stateExpired: `This Discord connection link has expired (it lasts ${DISCORD_OAUTH_STATE_MINUTES} minutes). Click Connect Discord to start again.`,
  wrongMember:
    'This Discord connection was started from another EdgeClub account. Sign in to that account to finish it, or click Connect Discord here.',
  codeMissing: 'Discord sent you back without a sign-in code. Click Connect Discord to try again.',
  codeRejected:
    'Discord did not accept this sign-in (it may have expired). Click Connect Discord to try again.',
  discordDown:
    'Discord is not responding right now, so nothing was connected. Please try again in a few minutes.',
  joinDiscordDown:
    'Your Discord account is connected, but Discord did not respond when we tried to add you to the server. Click Join the Server to try again in a few minutes.',
  alreadyLinked:
    'This Discord account is already connected to another EdgeClub account. Sign in to that account, or connect a different Discord account.',
  disconnectFirst: (username: string) =>
    `You are connected as ${username}. Disconnect it first to connect a different Discord account.`,
  banned: communityMessages.banned,
  guildFull:
    'Your Discord account is connected, but the EdgeClub server is full right now. Please contact support.',
  tooManyServers:
    'Your Discord account is connected, but it is already in 100 servers, the most Discord allows. Leave a server on Discord, then click Join the Server.',
  missingScope:
    'Discord did not give us permission to add you to the server. Click Connect Discord and authorize every item.',
  joined: (username: string) =>
    `Connected as ${username}. You are in the EdgeClub Discord with the member role.`,
  alreadyMember: (username: string) =>
    `Connected as ${username}. You were already in the EdgeClub Discord; the member role is yours.`,
  connectedNoAccess: (username: string) =>
    `Connected as ${username}. Subscribe to a plan, then click Join the Server to get in with the member role.`,
  connectedOnly: (username: string) => `Connected as ${username}.`,
  disconnected: (username: string) =>
    `Disconnected ${username}. If it had the member role, the role is being removed.`,
  notConnected: 'No Discord account is connected.',
  tooManyDisconnects: `You can disconnect Discord ${DISCORD_DISCONNECTS_PER_DAY} times a day. Please try again tomorrow.`,
  tooManyAttempts: 'Too many Discord connection attempts. Please wait a while and try again.',
  verificationRequired: 'Connect your Discord account to receive the member role.',
  /** The browser could not reach EdgeClub at all. */
  unreachable: 'EdgeClub could not be reached. Check your connection and try again.',
} as const

/** POST /discord/connect: where to send the member (Discord's consent page, with a fresh state). */
export const DiscordConnectStartSchema = z.object({ authorizeUrl: z.string() })
export type DiscordConnectStart = z.infer<typeof DiscordConnectStartSchema>

/**
 * POST /discord/connect/callback: what Discord put on the redirect URI, passed on by the web app:
 * `code` and `state` after Authorize, `error` (access_denied) and `state` after Cancel.
 */
export const DiscordCallbackSchema = z.object({
  code: text().max(512).optional(),
  state: text().max(512).optional(),
  error: text().max(100).optional(),
  errorDescription: text().max(500).optional(),
})
export type DiscordCallback = z.infer<typeof DiscordCallbackSchema>

/** What connecting did in the server: added with the role, already there (role added), or nothing yet. */
export const DISCORD_JOIN_OUTCOMES = ['added', 'already-member', 'no-access', 'not-configured'] as const

export const DiscordConnectResultSchema = z.object({
  connection: DiscordConnectionSchema,
  guild: z.enum(DISCORD_JOIN_OUTCOMES),
  roleGranted: z.boolean(),
})
export type DiscordConnectResult = z.infer<typeof DiscordConnectResultSchema>

export const DiscordDisconnectResultSchema = z.object({ username: z.string() })
export type DiscordDisconnectResult = z.infer<typeof DiscordDisconnectResultSchema>
