import { randomBytes } from 'node:crypto'
import type {
  AcceptedGiftTypes,
  BotCommand,
  Chat,
  ChatAdministratorRights,
  ChatFullInfo,
  ChatInviteLink,
  ChatJoinRequest,
  ChatMember,
  ChatMemberUpdated,
  ChatPermissions,
  Message,
  Update,
  User,
  UserFromGetMe,
} from '@grammyjs/types'
import { withDetectedEntities } from './text-entities'

/**
 * The Telegram world EdgeClub's bot lives in, held in memory: the bot, people, the supergroups and
 * channels it administers with their members, join requests, invite links and messages, and the
 * private chats people have with the bot. Objects are typed with @grammyjs/types, so the compiler
 * holds them to the Bot API's documented shapes. Changes that Telegram reports to bots become
 * updates handed to `onUpdate`; the update queue decides which the bot asked for.
 */

export type MemberStatus = 'creator' | 'administrator' | 'member' | 'restricted' | 'left' | 'kicked'
export type ChatKind = 'supergroup' | 'channel'
/** An update without its update_id (the queue numbers them). */
export type UpdateBody = Omit<Update, 'update_id'>

export interface TelegramUserInput {
  first_name: string
  last_name?: string
  /** 5-32 characters of a-z, 0-9 and _, starting with a letter; unique (a known username is the same person). */
  username?: string
  language_code?: string
  id?: number
}

export interface TelegramChatInput {
  /** Negative, as Telegram's supergroup and channel ids are (default -100…). */
  id?: number
  type: ChatKind
  title: string
  /** A public @username; chats are private (no username) by default. */
  username?: string
  description?: string
  /** The bot's place in the chat (default administrator). */
  bot?: 'administrator' | 'member' | 'left' | 'kicked'
  /** The bot's administrator rights (default DEFAULT_BOT_RIGHTS, plus posting rights in channels). */
  botRights?: Partial<ChatAdministratorRights>
  /** People already in the chat as members (the owner is always its creator). */
  memberIds?: number[]
}

export interface TelegramStateOptions {
  /** `<bot id>:<secret>`, as BotFather issues them; the bot's user id is the number before the colon. */
  botToken?: string
  botUsername?: string
  /** The bot's display name (first_name). */
  botName?: string
  /** People the emulator knows besides the chats' owner (default Jordan and Alex). */
  users?: TelegramUserInput[]
  /** The chats the bot is in (default EdgeClub Signals, EdgeClub VIP, NFL Picks). */
  chats?: TelegramChatInput[]
  /** The owner (creator) of every seeded chat. */
  owner?: TelegramUserInput
  /**
   * The base of the links Telegram hands out: invite links are `${linkBase}/+<hash>`. Telegram's is
   * https://t.me; `'emulator'` means this emulator's own `/telegram/t.me` page, once it listens.
   */
  linkBase?: string
}

export interface TelegramConfig {
  botToken: string
  botId: number
  botUsername: string
  botName: string
  ownerId: number
  /** The chats as seeded: id, type and title (what the app is configured with). */
  chats: Array<{ id: number; type: ChatKind; title: string; username: string | null }>
}

export const DEFAULT_BOT_RIGHTS: ChatAdministratorRights = {
  is_anonymous: false,
  can_manage_chat: true,
  can_delete_messages: true,
  can_manage_video_chats: false,
  can_restrict_members: true,
  can_promote_members: false,
  can_change_info: false,
  can_invite_users: true,
  can_post_stories: false,
  can_edit_stories: false,
  can_delete_stories: false,
  can_send_welcome_messages: false,
}

const OWNER_RIGHTS: ChatAdministratorRights = {
  ...DEFAULT_BOT_RIGHTS,
  can_manage_video_chats: true,
  can_promote_members: true,
  can_change_info: true,
  can_post_stories: true,
  can_edit_stories: true,
  can_delete_stories: true,
}

const ALL_GIFTS: AcceptedGiftTypes = {
  unlimited_gifts: false,
  limited_gifts: false,
  unique_gifts: false,
  premium_subscription: false,
  gifts_from_channels: false,
}

const MEMBER_PERMISSIONS: ChatPermissions = {
  can_send_messages: true,
  can_send_audios: true,
  can_send_documents: true,
  can_send_photos: true,
  can_send_videos: true,
  can_send_video_notes: true,
  can_send_voice_notes: true,
  can_send_polls: true,
  can_send_other_messages: true,
  can_add_web_page_previews: true,
  can_react_to_messages: true,
  can_change_info: false,
  can_invite_users: false,
  can_edit_tag: false,
  can_pin_messages: false,
  can_manage_topics: false,
}

export interface Membership {
  userId: number
  status: MemberStatus
  /** kicked/restricted: Unix time it ends (0: forever). */
  untilDate: number
  rights: ChatAdministratorRights | null
  /** restricted: still a member of the chat. */
  isMember: boolean
  joinedAt: number
  /** The invite link hash the member joined through. */
  inviteHash: string | null
}

export interface JoinRequest {
  userId: number
  date: number
  inviteHash: string | null
}

export type JoinDecision = 'approved' | 'declined'

export interface StoredLink {
  hash: string
  chatId: number
  creatorId: number
  name: string
  expireDate: number
  memberLimit: number
  createsJoinRequest: boolean
  isPrimary: boolean
  isRevoked: boolean
  createdAt: number
}

export interface StoredChat {
  id: number
  type: ChatKind
  title: string
  username: string | null
  description: string | null
  members: Map<number, Membership>
  joinRequests: Map<number, JoinRequest>
  /** The last answer to each person's join request (what the people page shows). */
  decisions: Map<number, { decision: JoinDecision; at: number }>
  messages: Message[]
  nextMessageId: number
}

export interface StoredUser {
  user: User
  /** Pressed Start: the bot may write to them. */
  started: boolean
  /** Blocked the bot: messages to them fail with 403. */
  blocked: boolean
  messages: Message[]
  nextMessageId: number
}

export interface ApiLogEntry {
  seq: number
  at: string
  method: string
  /** The parameters as received (secret_token masked). */
  params: Record<string, string>
  status: number
  description: string | null
  /** Answered by a forced fault rather than the emulated API. */
  forced: boolean
}

export interface TelegramState {
  bot: UserFromGetMe
  users: Array<User & { started: boolean; blocked: boolean }>
  chats: Array<{
    chat: Chat
    members: ChatMember[]
    joinRequests: Array<{ user: User; date: number; inviteLink: string | null }>
    inviteLinks: ChatInviteLink[]
    messages: Message[]
  }>
  /** Private chats with the bot, by user id. */
  privateChats: Array<{ user: User; messages: Message[] }>
  commands: BotCommand[]
  log: ApiLogEntry[]
}

const TOKEN = /^(\d{1,16}):[A-Za-z0-9_-]{30,}$/
const USERNAME = /^[A-Za-z][A-Za-z0-9_]{4,31}$/
/** How long a join request lets the bot write to someone who never started it. */
const JOIN_REQUEST_CHAT_SECONDS = 5 * 60

export function isActiveMember(membership: Membership | undefined): boolean {
  if (!membership) return false
  if (membership.status === 'restricted') return membership.isMember
  return (
    membership.status === 'creator' || membership.status === 'administrator' || membership.status === 'member'
  )
}

function inviteHash(): string {
  // Telegram's hashes are 16 characters of base64url.
  return randomBytes(12).toString('base64url')
}

function validUser(input: TelegramUserInput, what: string): void {
  if (typeof input.first_name !== 'string' || input.first_name.trim() === '' || input.first_name.length > 64)
    throw new Error(`telegram emulator: ${what} needs a first_name of 1-64 characters`)
  if (input.username !== undefined && !USERNAME.test(input.username))
    throw new Error(
      `telegram emulator: "${input.username}" is not a Telegram username (5-32 of a-z 0-9 _, starting with a letter)`,
    )
  if (input.id !== undefined && (!Number.isSafeInteger(input.id) || input.id <= 0))
    throw new Error('telegram emulator: a user id must be a positive integer')
}

export function resolveConfig(options: TelegramStateOptions): TelegramConfig {
  const botToken = options.botToken ?? '7000000001:AAHdemoEdgeClubTelegramEmulatorBot1'
  const token = TOKEN.exec(botToken)
  if (!token?.[1])
    throw new Error('telegram emulator: botToken must look like "<bot id>:<secret of 30+ characters>"')
  const botUsername = options.botUsername ?? 'edgeclub_demo_bot'
  if (!USERNAME.test(botUsername) || !botUsername.toLowerCase().endsWith('bot'))
    throw new Error('telegram emulator: botUsername must be a Telegram username ending in "bot"')
  const chats = (options.chats ?? DEFAULT_CHATS).map((chat, index) => ({
    id: chat.id ?? -1001000000001 - index,
    type: chat.type,
    title: chat.title,
    username: chat.username ?? null,
  }))
  for (const chat of chats) {
    if (chat.type !== 'supergroup' && chat.type !== 'channel')
      throw new Error('telegram emulator: chats are supergroups or channels')
    if (!Number.isSafeInteger(chat.id) || chat.id >= 0)
      throw new Error('telegram emulator: a chat id must be negative')
    if (typeof chat.title !== 'string' || chat.title.trim() === '')
      throw new Error('telegram emulator: a chat needs a title')
  }
  if (new Set(chats.map((chat) => chat.id)).size !== chats.length)
    throw new Error('telegram emulator: chat ids must be unique')
  return {
    botToken,
    botId: Number(token[1]),
    botUsername,
    botName: options.botName ?? 'EdgeClub',
    ownerId: options.owner?.id ?? 1000000001,
    chats,
  }
}

const DEFAULT_CHATS: TelegramChatInput[] = [
  { type: 'channel', title: 'EdgeClub Signals', description: 'Every pick as it is published.' },
  { type: 'supergroup', title: 'EdgeClub VIP', description: 'Members-only discussion and VIP picks.' },
  { type: 'supergroup', title: 'NFL Picks', description: 'The NFL package.' },
]

const DEFAULT_USERS: TelegramUserInput[] = [
  { id: 1000000002, first_name: 'Jordan', username: 'jordan_t', language_code: 'en' },
  {
    id: 1000000003,
    first_name: 'Alex',
    last_name: 'Stranger',
    username: 'alex_stranger',
    language_code: 'en',
  },
]

export class TelegramStore {
  readonly config: TelegramConfig
  linkBase: string
  bot!: UserFromGetMe
  users = new Map<number, StoredUser>()
  chats = new Map<number, StoredChat>()
  links = new Map<string, StoredLink>()
  commands = new Map<string, BotCommand[]>()
  log: ApiLogEntry[] = []
  onUpdate: (update: UpdateBody) => void = () => {}
  private clockOffsetMs = 0
  private seq = 0
  private nextUserId = 1000000100

  constructor(private readonly options: TelegramStateOptions = {}) {
    this.config = resolveConfig(options)
    this.linkBase = (options.linkBase ?? 'https://t.me').replace(/\/$/, '')
    for (const input of [options.owner, ...(options.users ?? [])])
      if (input) validUser(input, 'a seeded user')
    this.reset()
  }

  now(): number {
    return Date.now() + this.clockOffsetMs
  }

  /** Telegram's dates are Unix seconds. */
  unixNow(): number {
    return Math.floor(this.now() / 1000)
  }

  advanceTime(seconds: number): void {
    if (!Number.isFinite(seconds) || seconds < 0)
      throw new Error('telegram emulator: seconds must be 0 or more')
    this.clockOffsetMs += seconds * 1000
  }

  reset(): void {
    const c = this.config
    this.clockOffsetMs = 0
    this.seq = 0
    this.nextUserId = 1000000100
    this.log = []
    this.users.clear()
    this.chats.clear()
    this.links.clear()
    this.commands.clear()
    this.bot = {
      id: c.botId,
      is_bot: true,
      first_name: c.botName,
      username: c.botUsername,
      can_join_groups: true,
      can_read_all_group_messages: false,
      supports_inline_queries: false,
      can_connect_to_business: false,
      has_main_web_app: false,
      has_topics_enabled: false,
      allows_users_to_create_topics: false,
      can_manage_bots: false,
      supports_join_request_queries: false,
    }
    const owner = this.createUser(
      this.options.owner ?? {
        first_name: 'Club',
        last_name: 'Owner',
        username: 'clubowner',
        language_code: 'en',
      },
      c.ownerId,
    )
    for (const input of this.options.users ?? DEFAULT_USERS) this.createUser(input)
    const created = Date.UTC(2024, 0, 15) / 1000
    ;(this.options.chats ?? DEFAULT_CHATS).forEach((input, index) => {
      const seeded = c.chats[index]
      if (!seeded) return
      const chat: StoredChat = {
        id: seeded.id,
        type: seeded.type,
        title: seeded.title,
        username: seeded.username,
        description: input.description ?? null,
        members: new Map(),
        joinRequests: new Map(),
        decisions: new Map(),
        messages: [],
        nextMessageId: 1,
      }
      this.chats.set(chat.id, chat)
      chat.members.set(owner.id, this.membership(owner.id, 'creator', created, OWNER_RIGHTS))
      const botPlace = input.bot ?? 'administrator'
      const botRights: ChatAdministratorRights = {
        ...DEFAULT_BOT_RIGHTS,
        ...(chat.type === 'channel'
          ? { can_post_messages: true, can_edit_messages: true }
          : { can_pin_messages: true }),
        ...input.botRights,
      }
      chat.members.set(
        c.botId,
        this.membership(c.botId, botPlace, created + 60, botPlace === 'administrator' ? botRights : null),
      )
      for (const userId of input.memberIds ?? []) {
        if (!this.users.has(userId))
          throw new Error(`telegram emulator: chat member ${userId} is not a known user`)
        if (!chat.members.has(userId))
          chat.members.set(userId, this.membership(userId, 'member', created + 120))
      }
      this.createLink(chat.id, c.botId, { isPrimary: true })
    })
  }

  membership(
    userId: number,
    status: MemberStatus,
    joinedAt: number,
    rights: ChatAdministratorRights | null = null,
  ): Membership {
    return { userId, status, untilDate: 0, rights, isMember: true, joinedAt, inviteHash: null }
  }

  record(entry: Omit<ApiLogEntry, 'seq' | 'at'>): void {
    this.seq += 1
    this.log.push({ seq: this.seq, at: new Date().toISOString(), ...entry })
  }

  // ---- people -----------------------------------------------------------------------------------

  /** Creates a person, or updates the one with that username (usernames are unique on Telegram). */
  createUser(input: TelegramUserInput, fixedId?: number): User {
    validUser(input, 'a user')
    const byName =
      input.username === undefined
        ? undefined
        : [...this.users.values()].find(
            (entry) => entry.user.username?.toLowerCase() === input.username?.toLowerCase(),
          )
    const wantedId = fixedId ?? input.id
    if (byName && wantedId !== undefined && byName.user.id !== wantedId)
      throw new Error(
        `telegram emulator: username "${input.username}" already belongs to user ${byName.user.id}`,
      )
    if (wantedId === this.config.botId) throw new Error('telegram emulator: that id is the bot')
    const id = byName?.user.id ?? wantedId ?? this.allocateUserId()
    const existing = this.users.get(id)
    const user: User = { id, is_bot: false, first_name: input.first_name.trim() }
    if (input.last_name) user.last_name = input.last_name
    if (input.username) user.username = input.username
    if (input.language_code) user.language_code = input.language_code
    if (existing) existing.user = user
    else this.users.set(id, { user, started: false, blocked: false, messages: [], nextMessageId: 1 })
    return { ...user }
  }

  private allocateUserId(): number {
    while (this.users.has(this.nextUserId)) this.nextUserId += 1
    return this.nextUserId++
  }

  person(userId: number): StoredUser {
    const found = this.users.get(userId)
    if (!found) throw new Error(`telegram emulator: no Telegram user ${userId}`)
    return found
  }

  /** Anyone the bot's API can name: people and the bot itself. */
  userObject(userId: number): User | undefined {
    if (userId === this.config.botId) return this.botUser()
    const found = this.users.get(userId)
    return found ? { ...found.user } : undefined
  }

  botUser(): User {
    return { id: this.bot.id, is_bot: true, first_name: this.bot.first_name, username: this.bot.username }
  }

  privateChat(userId: number): Chat.PrivateChat {
    const { user } = this.person(userId)
    const chat: Chat.PrivateChat = { id: user.id, type: 'private', first_name: user.first_name }
    if (user.last_name) chat.last_name = user.last_name
    if (user.username) chat.username = user.username
    return chat
  }

  /** Whether the bot may write to this person: they started it, or asked to join one of its chats just now. */
  canMessage(userId: number): boolean {
    const person = this.users.get(userId)
    if (!person) return false
    if (person.started) return true
    const since = this.unixNow() - JOIN_REQUEST_CHAT_SECONDS
    return [...this.chats.values()].some((chat) => (chat.joinRequests.get(userId)?.date ?? 0) >= since)
  }

  /** A message from a person to the bot, delivered as a `message` update. */
  userMessage(userId: number, text: string): Message.TextMessage {
    const person = this.person(userId)
    const message: Message.TextMessage & { chat: Chat.PrivateChat; from: User } = {
      message_id: person.nextMessageId++,
      from: { ...person.user },
      chat: this.privateChat(userId),
      date: this.unixNow(),
      ...this.textWithEntities(text),
    }
    person.messages.push(message)
    this.onUpdate({ message })
    return message
  }

  private textWithEntities(text: string): { text: string; entities?: Message.TextMessage['entities'] } {
    const detected = withDetectedEntities({ text, entities: [] })
    return detected.entities.length > 0 ? { text, entities: detected.entities } : { text }
  }

  /** The person blocks or unblocks the bot; Telegram tells the bot with my_chat_member. */
  setBlocked(userId: number, blocked: boolean): void {
    const person = this.person(userId)
    if (person.blocked === blocked) return
    person.blocked = blocked
    const chat = this.privateChat(userId)
    const bot = this.botUser()
    const member: ChatMember = { status: 'member', user: bot }
    const kicked: ChatMember = { status: 'kicked', user: bot, until_date: 0 }
    this.onUpdate({
      my_chat_member: {
        chat,
        from: { ...person.user },
        date: this.unixNow(),
        old_chat_member: blocked ? member : kicked,
        new_chat_member: blocked ? kicked : member,
      },
    })
  }

  // ---- chats ------------------------------------------------------------------------------------

  chat(chatId: number): StoredChat {
    const found = this.chats.get(chatId)
    if (!found) throw new Error(`telegram emulator: no chat ${chatId}`)
    return found
  }

  chatByUsername(username: string): StoredChat | undefined {
    const wanted = username.replace(/^@/, '').toLowerCase()
    return [...this.chats.values()].find((chat) => chat.username?.toLowerCase() === wanted)
  }

  chatObject(chat: StoredChat): Chat.SupergroupChat | Chat.ChannelChat {
    const base = { id: chat.id, title: chat.title, ...(chat.username ? { username: chat.username } : {}) }
    return chat.type === 'channel' ? { ...base, type: 'channel' } : { ...base, type: 'supergroup' }
  }

  fullChat(chat: StoredChat): ChatFullInfo {
    const common = {
      id: chat.id,
      title: chat.title,
      accent_color_id: 0,
      max_reaction_count: 11,
      accepted_gift_types: ALL_GIFTS,
      ...(chat.username ? { username: chat.username, active_usernames: [chat.username] } : {}),
      ...(chat.description ? { description: chat.description } : {}),
    }
    const primary = this.canManageLinks(chat) ? this.primaryLink(chat) : undefined
    const inviteLink = primary ? { invite_link: this.linkUrl(primary.hash) } : {}
    if (chat.type === 'channel') return { ...common, ...inviteLink, type: 'channel' }
    return { ...common, ...inviteLink, type: 'supergroup', permissions: MEMBER_PERMISSIONS }
  }

  /** A member's current place, settling bans and restrictions whose time ran out. */
  memberOf(chat: StoredChat, userId: number): Membership | undefined {
    const membership = chat.members.get(userId)
    if (
      membership &&
      (membership.status === 'kicked' || membership.status === 'restricted') &&
      membership.untilDate > 0 &&
      membership.untilDate <= this.unixNow()
    ) {
      if (membership.status === 'kicked' || !membership.isMember) {
        membership.status = 'left'
      } else {
        membership.status = 'member'
      }
      membership.untilDate = 0
    }
    return membership
  }

  botMembership(chat: StoredChat): Membership | undefined {
    return this.memberOf(chat, this.config.botId)
  }

  botIsAdmin(chat: StoredChat): boolean {
    const status = this.botMembership(chat)?.status
    return status === 'creator' || status === 'administrator'
  }

  botRight(chat: StoredChat, right: keyof ChatAdministratorRights): boolean {
    const membership = this.botMembership(chat)
    if (membership?.status === 'creator') return true
    return membership?.status === 'administrator' && membership.rights?.[right] === true
  }

  canManageLinks(chat: StoredChat): boolean {
    return this.botRight(chat, 'can_invite_users')
  }

  memberObject(chat: StoredChat, userId: number): ChatMember {
    const user = this.userObject(userId)
    if (!user) throw new Error(`telegram emulator: no Telegram user ${userId}`)
    return memberObjectFor(this.memberOf(chat, userId), user)
  }

  members(chat: StoredChat): ChatMember[] {
    return [...chat.members.keys()]
      .map((userId) => this.memberObject(chat, userId))
      .filter((member) => member.status !== 'left')
  }

  memberCount(chat: StoredChat): number {
    return [...chat.members.keys()].filter((userId) => isActiveMember(this.memberOf(chat, userId))).length
  }

  /**
   * Puts someone in a new place in a chat and tells the bot: my_chat_member when it is the bot, a
   * chat_member update when the bot administers the chat (it must also ask for them).
   */
  changeMember(
    chat: StoredChat,
    userId: number,
    next: Omit<Membership, 'userId'>,
    actor: User,
    extra: { inviteHash?: string | null; viaJoinRequest?: boolean } = {},
  ): void {
    const user = this.userObject(userId)
    if (!user) throw new Error(`telegram emulator: no Telegram user ${userId}`)
    const before = memberObjectFor(this.memberOf(chat, userId), user)
    const membership: Membership = { userId, ...next }
    if (membership.status === 'left') chat.members.delete(userId)
    else chat.members.set(userId, membership)
    const after = memberObjectFor(membership.status === 'left' ? undefined : membership, user)
    if (JSON.stringify(before) === JSON.stringify(after)) return
    const updated: ChatMemberUpdated = {
      chat: this.chatObject(chat),
      from: actor,
      date: this.unixNow(),
      old_chat_member: before,
      new_chat_member: after,
    }
    const link = extra.inviteHash ? this.links.get(extra.inviteHash) : undefined
    if (link) updated.invite_link = this.linkObject(link, link.creatorId === this.config.botId)
    if (extra.viaJoinRequest) updated.via_join_request = true
    if (userId === this.config.botId) this.onUpdate({ my_chat_member: updated })
    else if (this.botIsAdmin(chat)) this.onUpdate({ chat_member: updated })
  }

  // ---- invite links ---------------------------------------------------------------------------------

  linkUrl(hash: string): string {
    return `${this.linkBase}/+${hash}`
  }

  /** The hash in any form of an invite link: https://t.me/+hash, t.me/joinchat/hash, this emulator's page. */
  static hashOf(link: string): string | undefined {
    return /(?:\+|joinchat\/)([A-Za-z0-9_-]+)\/?(?:[?#].*)?$/.exec(link.trim())?.[1]
  }

  createLink(
    chatId: number,
    creatorId: number,
    options: Partial<
      Pick<StoredLink, 'name' | 'expireDate' | 'memberLimit' | 'createsJoinRequest' | 'isPrimary'>
    >,
  ): StoredLink {
    let hash = inviteHash()
    while (this.links.has(hash)) hash = inviteHash()
    const link: StoredLink = {
      hash,
      chatId,
      creatorId,
      name: options.name ?? '',
      expireDate: options.expireDate ?? 0,
      memberLimit: options.memberLimit ?? 0,
      createsJoinRequest: options.createsJoinRequest ?? false,
      isPrimary: options.isPrimary ?? false,
      isRevoked: false,
      createdAt: this.unixNow(),
    }
    this.links.set(hash, link)
    return link
  }

  primaryLink(chat: StoredChat): StoredLink | undefined {
    return [...this.links.values()].find(
      (link) => link.chatId === chat.id && link.isPrimary && !link.isRevoked,
    )
  }

  /** Members still in the chat who joined through this link (what member_limit counts). */
  linkMembers(link: StoredLink): number {
    const chat = this.chats.get(link.chatId)
    if (!chat) return 0
    return [...chat.members.values()].filter(
      (membership) =>
        membership.inviteHash === link.hash && isActiveMember(this.memberOf(chat, membership.userId)),
    ).length
  }

  /** Why a link cannot be used right now, in the words Telegram's apps use; undefined when it can. */
  linkProblem(link: StoredLink): string | undefined {
    if (link.isRevoked) return 'This invite link was revoked.'
    if (link.expireDate > 0 && link.expireDate <= this.unixNow()) return 'This invite link has expired.'
    if (link.memberLimit > 0 && this.linkMembers(link) >= link.memberLimit)
      return 'This invite link has reached its member limit.'
    return undefined
  }

  linkObject(link: StoredLink, full = true): ChatInviteLink {
    const creator = this.userObject(link.creatorId) ?? this.botUser()
    // Links made by other administrators are shown to the bot with their middle masked, as Telegram does.
    const url = full ? this.linkUrl(link.hash) : this.linkUrl(`${link.hash.slice(0, 4)}...`)
    const object: ChatInviteLink = {
      invite_link: url,
      creator,
      creates_join_request: link.createsJoinRequest,
      is_primary: link.isPrimary,
      is_revoked: link.isRevoked,
    }
    if (link.name) object.name = link.name
    if (link.expireDate > 0) object.expire_date = link.expireDate
    if (link.memberLimit > 0) object.member_limit = link.memberLimit
    if (link.createsJoinRequest) {
      const chat = this.chats.get(link.chatId)
      object.pending_join_request_count = chat
        ? [...chat.joinRequests.values()].filter((request) => request.inviteHash === link.hash).length
        : 0
    }
    return object
  }

  joinRequestObject(chat: StoredChat, request: JoinRequest): ChatJoinRequest {
    const person = this.person(request.userId)
    const object: ChatJoinRequest = {
      chat: this.chatObject(chat),
      from: { ...person.user },
      user_chat_id: person.user.id,
      date: request.date,
    }
    const link = request.inviteHash ? this.links.get(request.inviteHash) : undefined
    if (link) object.invite_link = this.linkObject(link, link.creatorId === this.config.botId)
    return object
  }

  // ---- messages ---------------------------------------------------------------------------------------

  pushChatMessage(chat: StoredChat, build: (messageId: number) => Message): Message {
    const message = build(chat.nextMessageId++)
    chat.messages.push(message)
    return message
  }

  pushPrivateMessage(userId: number, build: (messageId: number) => Message): Message {
    const person = this.person(userId)
    const message = build(person.nextMessageId++)
    person.messages.push(message)
    return message
  }

  // ---- snapshot -------------------------------------------------------------------------------------

  state(): TelegramState {
    return structuredClone({
      bot: this.bot,
      users: [...this.users.values()].map((entry) => ({
        ...entry.user,
        started: entry.started,
        blocked: entry.blocked,
      })),
      chats: [...this.chats.values()].map((chat) => ({
        chat: this.chatObject(chat),
        members: this.members(chat),
        joinRequests: [...chat.joinRequests.values()].map((request) => ({
          user: this.person(request.userId).user,
          date: request.date,
          inviteLink: request.inviteHash ? this.linkUrl(request.inviteHash) : null,
        })),
        inviteLinks: [...this.links.values()]
          .filter((link) => link.chatId === chat.id)
          .map((link) => this.linkObject(link)),
        messages: chat.messages,
      })),
      privateChats: [...this.users.values()]
        .filter((entry) => entry.messages.length > 0)
        .map((entry) => ({ user: entry.user, messages: entry.messages })),
      commands: this.commands.get('default:') ?? [],
      log: this.log,
    })
  }
}

export function memberObjectFor(membership: Membership | undefined, user: User): ChatMember {
  if (!membership) return { status: 'left', user }
  switch (membership.status) {
    case 'creator':
      return { status: 'creator', user, is_anonymous: false }
    case 'administrator': {
      const rights = membership.rights ?? DEFAULT_BOT_RIGHTS
      return { status: 'administrator', user, can_be_edited: false, ...rights }
    }
    case 'member':
      return { status: 'member', user }
    case 'restricted':
      return {
        status: 'restricted',
        user,
        is_member: membership.isMember,
        can_send_messages: false,
        can_send_audios: false,
        can_send_documents: false,
        can_send_photos: false,
        can_send_videos: false,
        can_send_video_notes: false,
        can_send_voice_notes: false,
        can_send_polls: false,
        can_send_other_messages: false,
        can_add_web_page_previews: false,
        can_react_to_messages: false,
        can_change_info: false,
        can_invite_users: false,
        can_edit_tag: false,
        can_pin_messages: false,
        can_manage_topics: false,
        until_date: membership.untilDate,
      }
    case 'left':
      return { status: 'left', user }
    case 'kicked':
      return { status: 'kicked', user, until_date: membership.untilDate }
  }
}
