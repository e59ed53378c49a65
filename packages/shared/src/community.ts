import { z } from 'zod'

/** What members and admins read about the Discord community, on both sides. */
export const communityMessages = {
  notConfigured: 'The Discord community is not connected yet. Please try again later or contact support.',
  needsAccess: 'An active subscription is required to join the Discord community.',
  banned: 'Your Discord access has been suspended. Please contact support.',
  tooManyInvites: 'You have created too many invites today. Use your latest invite, or try again tomorrow.',
  noDiscordUsername: 'Add your Discord username in Settings first, so we can give you the member role.',
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

/** GET /discord/status: what the member's Discord Access tab shows. */
export const DiscordStatusSchema = z.object({
  configured: z.boolean(),
  state: z.enum(DISCORD_LINK_STATES),
  roleGranted: z.boolean(),
  discordUsername: z.string(),
  invite: DiscordInviteSchema.nullable(),
})
export type DiscordStatus = z.infer<typeof DiscordStatusSchema>

export const ModerationResultSchema = z.object({ state: z.enum(['kicked', 'banned', 'removed']) })
export type ModerationResult = z.infer<typeof ModerationResultSchema>

export const BroadcastResultSchema = z.object({ messageId: z.string(), emailed: z.number().int() })
export type BroadcastResult = z.infer<typeof BroadcastResultSchema>

/** The bot's setup checks and how many members' roles disagree with their access. */
export const DiscordHealthSchema = z.object({
  ok: z.boolean(),
  checks: z.array(z.object({ name: z.string(), ok: z.boolean(), detail: z.string() })),
  drift: z.object({ missingRole: z.number().int(), extraRole: z.number().int() }),
})
export type DiscordHealth = z.infer<typeof DiscordHealthSchema>
