import { z } from 'zod'
import { text } from './text'

/**
 * Places: what a plan opens. Discord roles in the club's server and Telegram chats (groups or
 * channels) are places the owner registers; signal categories (a pick's sport, a signal's instrument)
 * are just their names. A plan grants every place of a kind ('all', the default, so plans made before
 * places keep working) or the ones chosen.
 */
export const PLACE_KINDS = ['discord_role', 'telegram_chat'] as const
export type PlaceKind = (typeof PLACE_KINDS)[number]

export const placeMessages = {
  unknownPlace:
    'One of the chosen places does not exist (it may have been removed). Reload and choose again.',
  wrongKind: 'A chosen place is of another kind.',
  tooManyPlaces: 'Choose at most 100 places of each kind',
  category: 'A category is a sport or an instrument of at most 20 characters',
  chatRequired: 'Enter the chat id (such as -1001234567890) or its @username',
  roleRequired: 'Choose a Discord role',
  telegramNotConfigured: 'Telegram is not connected yet (TELEGRAM_BOT_TOKEN).',
  discordNotConfigured: 'Discord is not connected yet (DISCORD_BOT_TOKEN and DISCORD_GUILD_ID).',
  alreadyAdded: 'This place is already listed.',
  chatNotFound:
    'Telegram does not know this chat, or the bot is not in it. Add the bot to the group or channel as an administrator first.',
  botNotAdmin: (missing: string) =>
    `The bot must be an administrator of this chat with these rights: ${missing}. Change its rights in Telegram, then add the chat again.`,
  privateChat: 'Only groups and channels can be places; this is a private chat.',
  roleNotAssignable:
    'The bot cannot give this role (it is managed by an integration, or not below the bot’s own role).',
} as const

/** Every place of the kind, or these (place ids for roles and chats, names for categories). */
const choice = <T extends z.ZodType<string>>(item: T) =>
  z.union([z.literal('all'), z.array(item).max(100, placeMessages.tooManyPlaces)])

export const signalCategoryName = () =>
  text().trim().min(1, placeMessages.category).max(20, placeMessages.category)

/** What a plan grants, as the plans editor sends it and the API answers it. */
export const PlanPlacesSchema = z.object({
  discordRoles: choice(text().uuid(placeMessages.unknownPlace)).default('all'),
  telegramChats: choice(text().uuid(placeMessages.unknownPlace)).default('all'),
  signalCategories: choice(signalCategoryName()).default('all'),
})
export type PlanPlaces = z.infer<typeof PlanPlacesSchema>
export type PlaceChoice = PlanPlaces['discordRoles']

export const ALL_PLACES: PlanPlaces = { discordRoles: 'all', telegramChats: 'all', signalCategories: 'all' }

/** True when a category is among the chosen ones ('all' includes every one); compared case-insensitively. */
export function categoryGranted(choice: 'all' | readonly string[], category: string): boolean {
  if (choice === 'all') return true
  const wanted = category.toLowerCase()
  return choice.some((entry) => entry.toLowerCase() === wanted)
}

/** A place as the admin console lists it. */
export const PlaceSchema = z.object({
  id: z.string(),
  kind: z.enum(PLACE_KINDS),
  /** The Discord role id or the Telegram chat id. */
  externalId: z.string(),
  title: z.string(),
  /** Telegram chats: the signal categories posted there ('all', or the chosen ones; [] posts none). */
  signalCategories: z.union([z.literal('all'), z.array(z.string())]),
  /** The Discord member role of DISCORD_MEMBER_ROLE_ID, always a place while Discord is configured. */
  builtIn: z.boolean(),
  /** Plans that grant it (by name or by granting every place of its kind). */
  plans: z.array(z.string()),
  createdAt: z.string(),
})
export type Place = z.infer<typeof PlaceSchema>

/** GET /admin/places: the places, the categories signals used so far, and what is configured. */
export const PlacesOverviewSchema = z.object({
  places: z.array(PlaceSchema),
  categories: z.array(z.string()),
  discordConfigured: z.boolean(),
  telegramConfigured: z.boolean(),
})
export type PlacesOverview = z.infer<typeof PlacesOverviewSchema>

/** POST /admin/places: a Telegram chat by id or @username, or a role of the club's Discord server. */
export const PlaceInputSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('telegram_chat'),
    chat: text({ error: placeMessages.chatRequired })
      .trim()
      .regex(/^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31})$/, placeMessages.chatRequired),
    signalCategories: z.union([z.literal('all'), z.array(signalCategoryName()).max(50)]).default('all'),
  }),
  z.object({
    kind: z.literal('discord_role'),
    roleId: text({ error: placeMessages.roleRequired })
      .trim()
      .regex(/^\d{17,20}$/, placeMessages.roleRequired),
  }),
])
export type PlaceInput = z.infer<typeof PlaceInputSchema>

/** PUT /admin/places/{id}: which signal categories a Telegram chat gets. */
export const PlaceUpdateSchema = z.object({
  signalCategories: z.union([z.literal('all'), z.array(signalCategoryName()).max(50)]),
})

/** GET /admin/places/discord-roles: roles of the server the bot can give, for the "add role" picker. */
export const DiscordRoleOptionSchema = z.object({ id: z.string(), name: z.string(), listed: z.boolean() })
export type DiscordRoleOption = z.infer<typeof DiscordRoleOptionSchema>
