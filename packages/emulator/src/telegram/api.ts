import type {
  ApiMethods,
  BotCommand,
  ChatFullInfo,
  ChatMember,
  ChatMemberAdministrator,
  ChatMemberOwner,
  InlineKeyboardButton,
  InlineKeyboardMarkup,
  LinkPreviewOptions,
  Message,
  MessageEntity,
} from '@grammyjs/types'
import {
  badRequest,
  botBlocked,
  botCantInitiate,
  cantRemoveOwner,
  cantRestrictSelf,
  chatIdEmpty,
  chatNotFound,
  forbidden,
  invalidUserId,
  notEnoughRightsForInviteLinks,
  notEnoughRightsForJoinRequests,
  notEnoughRightsToRestrict,
  supergroupOrChannelOnly,
  tooManyRequests,
  userIsAdministrator,
  userNotFound,
} from './errors'
import type { FloodControl } from './flood-control'
import { type Args, toInteger } from './request-args'
import { isActiveMember, type StoredChat, type StoredLink, TelegramStore } from './state'
import { checkLink, formatMessageText, withDetectedEntities } from './text-entities'
import type { UpdateQueue } from './update-queue'

/**
 * The Bot API methods EdgeClub's bot uses, each reading its parameters the way the Bot API server
 * does and answering what Telegram answers. Results are typed with @grammyjs/types' ApiMethods, so
 * tsc holds every answer to the method's documented return type; failures throw TelegramError with
 * Telegram's words. Authentication, forced faults and logging wrap these in telegram.ts.
 */

type Api = ApiMethods<never>
export type EmulatedMethod =
  | 'getMe'
  | 'getUpdates'
  | 'setWebhook'
  | 'deleteWebhook'
  | 'getWebhookInfo'
  | 'sendMessage'
  | 'createChatInviteLink'
  | 'editChatInviteLink'
  | 'revokeChatInviteLink'
  | 'approveChatJoinRequest'
  | 'declineChatJoinRequest'
  | 'banChatMember'
  | 'unbanChatMember'
  | 'getChatMember'
  | 'getChat'
  | 'getChatAdministrators'
  | 'getChatMemberCount'
  | 'leaveChat'
  | 'setMyCommands'
  | 'getMyCommands'
  | 'deleteMyCommands'

/** What each method answers, as the Bot API documents it. */
export type MethodResult<M extends EmulatedMethod> = ReturnType<Api[M]>
/** The parameters each method takes, as the Bot API documents them. */
export type MethodParams<M extends EmulatedMethod> = NonNullable<Parameters<Api[M]>[0]>

export interface CallMeta {
  /** Telegram's `description` beside `result` (setWebhook's "Webhook was set"). */
  description?: string
}

type Handler<M extends EmulatedMethod> = (
  args: Args,
  meta: CallMeta,
) => MethodResult<M> | Promise<MethodResult<M>>

type Target = { kind: 'chat'; chat: StoredChat } | { kind: 'private'; userId: number }

/** read: anything the bot may look at; write: acting in the chat (needs the bot in it, even when public). */
type Access = 'read' | 'write'

const chatKind = (chat: StoredChat) => (chat.type === 'channel' ? 'channel' : 'supergroup')

export function createMethods(
  store: TelegramStore,
  queue: UpdateQueue,
  flood: FloodControl,
): Map<string, { name: EmulatedMethod; handler: Handler<EmulatedMethod> }> {
  const config = store.config

  // ---- parameters ---------------------------------------------------------------------------------

  function target(args: Args, access: Access): Target {
    const raw = args.string('chat_id')
    if (raw === undefined) throw chatIdEmpty()
    let chat: StoredChat | undefined
    if (raw.startsWith('@')) {
      chat = store.chatByUsername(raw)
    } else {
      const id = toInteger(raw)
      if (id > 0) {
        if (id === config.botId || !store.users.has(id)) throw chatNotFound()
        return { kind: 'private', userId: id }
      }
      chat = store.chats.get(id)
    }
    if (!chat) throw chatNotFound()
    const bot = store.botMembership(chat)
    if (bot?.status === 'kicked') throw forbidden(`bot was kicked from the ${chatKind(chat)} chat`)
    // A public chat can be read by anyone; acting in it, and anything in a private one, needs membership.
    if (!isActiveMember(bot) && (chat.username === null || access === 'write'))
      throw forbidden(`bot is not a member of the ${chatKind(chat)} chat`)
    return { kind: 'chat', chat }
  }

  function userId(args: Args): number {
    const id = Math.max(0, toInteger(args.string('user_id') ?? ''))
    if (id === 0) throw invalidUserId()
    return id
  }

  function linkIn(chat: StoredChat, raw: string | undefined): StoredLink {
    if (raw === undefined) throw badRequest('invite link must be non-empty')
    const hash = TelegramStore.hashOf(raw)
    if (!hash) throw badRequest('wrong invite link')
    const link = store.links.get(hash)
    if (!link || link.chatId !== chat.id) throw badRequest('INVITE_HASH_EXPIRED')
    return link
  }

  function linkSettings(args: Args): {
    name: string
    expireDate: number
    memberLimit: number
    createsJoinRequest: boolean
  } {
    const params = {
      // Telegram keeps the first 32 characters of a name.
      name: [...(args.string('name') ?? '')].slice(0, 32).join(''),
      expire_date: args.integer('expire_date', 0, 0),
      member_limit: args.integer('member_limit', 0, 0, 99_999),
      creates_join_request: args.bool('creates_join_request'),
    } satisfies Omit<MethodParams<'createChatInviteLink'>, 'chat_id'>
    const settings = {
      name: params.name,
      expireDate: params.expire_date,
      memberLimit: params.member_limit,
      createsJoinRequest: params.creates_join_request,
    }
    if (settings.createsJoinRequest && settings.memberLimit > 0)
      throw badRequest("member limit can't be specified for links requiring administrator approval")
    if (settings.expireDate > 0 && settings.expireDate <= store.unixNow())
      throw badRequest('EXPIRE_DATE_INVALID')
    return settings
  }

  function requireLinkRights(target: Target): StoredChat {
    if (target.kind === 'private') throw badRequest("can't invite members to a private chat")
    if (!store.canManageLinks(target.chat)) throw notEnoughRightsForInviteLinks()
    return target.chat
  }

  function requireJoinRequestRights(target: Target): StoredChat {
    if (target.kind === 'private') throw badRequest("the chat can't have join requests")
    if (!store.canManageLinks(target.chat)) throw notEnoughRightsForJoinRequests()
    return target.chat
  }

  function inlineKeyboard(args: Args): InlineKeyboardMarkup | undefined {
    const markup = args.json('reply_markup', 'reply keyboard markup')
    if (markup === undefined) return undefined
    if (!markup || typeof markup !== 'object' || Array.isArray(markup))
      throw badRequest('object expected as reply markup')
    const rows = (markup as { inline_keyboard?: unknown }).inline_keyboard
    if (rows === undefined) return undefined
    if (!Array.isArray(rows)) throw badRequest('Field "inline_keyboard" must be of type Array')
    const keyboard: InlineKeyboardButton[][] = rows.map((row) => {
      if (!Array.isArray(row))
        throw badRequest('Field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays')
      return row.map((button) => inlineButton(button))
    })
    return keyboard.some((row) => row.length > 0) ? { inline_keyboard: keyboard } : undefined
  }

  function inlineButton(raw: unknown): InlineKeyboardButton {
    const fail = (message: string) => badRequest(`can't parse inline keyboard button: ${message}`)
    if (!raw || typeof raw !== 'object' || Array.isArray(raw))
      throw fail('InlineKeyboardButton must be an Object')
    const button = raw as Record<string, unknown>
    if (!('text' in button)) throw fail('Can\'t find field "text"')
    if (typeof button.text !== 'string') throw fail('Field "text" must be of type String')
    if (button.text.trim() === '') throw badRequest('inline keyboard button text must be non-empty')
    if (typeof button.url === 'string' && button.url !== '') {
      const checked = checkLink(button.url)
      if ('error' in checked)
        throw badRequest(`inline keyboard button URL '${button.url}' is invalid: ${checked.error}`)
      return { text: button.text, url: checked.url }
    }
    if (typeof button.callback_data === 'string' && button.callback_data !== '') {
      if (Buffer.byteLength(button.callback_data) > 64) throw badRequest('BUTTON_DATA_INVALID')
      return { text: button.text, callback_data: button.callback_data }
    }
    for (const kind of ['web_app', 'login_url', 'switch_inline_query', 'copy_text', 'pay', 'callback_game']) {
      if (kind in button) return { ...(button as object) } as InlineKeyboardButton
    }
    throw fail('Text buttons are unallowed in the inline keyboard')
  }

  function linkPreview(args: Args): LinkPreviewOptions | undefined {
    const raw = args.json('link_preview_options', 'link preview options')
    if (raw === undefined) {
      return args.bool('disable_web_page_preview') ? { is_disabled: true } : undefined
    }
    if (!raw || typeof raw !== 'object' || Array.isArray(raw))
      throw badRequest('object expected as link preview options')
    const options: LinkPreviewOptions = {}
    const given = raw as Record<string, unknown>
    for (const key of [
      'is_disabled',
      'prefer_small_media',
      'prefer_large_media',
      'show_above_text',
    ] as const) {
      if (given[key] === undefined) continue
      if (typeof given[key] !== 'boolean') throw badRequest(`Field "${key}" must be of type Boolean`)
      options[key] = given[key]
    }
    if (given.url !== undefined) {
      if (typeof given.url !== 'string') throw badRequest('Field "url" must be of type String')
      options.url = given.url
    }
    return options
  }

  function messageEntities(args: Args): MessageEntity[] | undefined {
    const raw = args.json('entities', 'entities')
    if (raw === undefined) return undefined
    if (!Array.isArray(raw)) throw badRequest("can't parse entities JSON object")
    return raw as MessageEntity[]
  }

  // ---- methods ----------------------------------------------------------------------------------------

  const handlers: { [M in EmulatedMethod]: Handler<M> } = {
    getMe: () => ({ ...store.bot }),

    getUpdates: async (args) => {
      const allowed = safeJson(args, 'allowed_updates')
      if (allowed !== undefined) queue.setAllowedUpdates(allowed)
      return queue.getUpdates(
        args.integer('offset', 0),
        args.integer('limit', 100, 1, 100),
        args.integer('timeout', 0, 0, 50),
      )
    },

    setWebhook: (args, meta) => {
      const url = args.string('url') ?? ''
      const drop = args.bool('drop_pending_updates')
      if (url === '') {
        meta.description =
          queue.deleteWebhook(drop) === 'deleted' ? 'Webhook was deleted' : 'Webhook is already deleted'
        return true
      }
      // Telegram insists on HTTPS on ports 443, 80, 88 or 8443; the emulator takes any http(s) URL so
      // the app's local server can receive updates.
      const parsed = URL.canParse(url) ? new URL(url) : undefined
      if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:'))
        throw badRequest('invalid webhook URL specified')
      const secretToken = args.string('secret_token') ?? ''
      if (secretToken.length > 256) throw badRequest('secret token is too long')
      if (!/^[A-Za-z0-9_-]*$/.test(secretToken))
        throw badRequest('secret token contains unallowed characters')
      const allowed = safeJson(args, 'allowed_updates')
      if (allowed !== undefined) queue.setAllowedUpdates(allowed)
      const outcome = queue.setWebhook(
        { url, secretToken, maxConnections: args.integer('max_connections', 40, 1, 100) },
        drop,
      )
      meta.description = outcome === 'set' ? 'Webhook was set' : 'Webhook is already set'
      return true
    },

    deleteWebhook: (args, meta) => {
      const outcome = queue.deleteWebhook(args.bool('drop_pending_updates'))
      meta.description = outcome === 'deleted' ? 'Webhook was deleted' : 'Webhook is already deleted'
      return true
    },

    getWebhookInfo: () => queue.info(),

    sendMessage: (args) => {
      const formatted = formatMessageText(args.string('text'), args.string('parse_mode'))
      const given = args.string('parse_mode') === undefined ? messageEntities(args) : undefined
      const entities = given
        ? withDetectedEntities({ text: formatted.text, entities: given }).entities
        : formatted.entities
      const replyMarkup = inlineKeyboard(args)
      const preview = linkPreview(args)
      const to = target(args, 'write')
      const now = store.now()
      let chatId: number
      if (to.kind === 'private') {
        const person = store.person(to.userId)
        if (person.blocked) throw botBlocked()
        if (!store.canMessage(to.userId)) throw botCantInitiate()
        chatId = to.userId
      } else {
        chatId = to.chat.id
        if (to.chat.type === 'channel' && !store.botRight(to.chat, 'can_post_messages'))
          throw badRequest('need administrator rights in the channel chat')
        if (to.chat.type === 'supergroup' && store.botMembership(to.chat)?.status === 'restricted')
          throw badRequest('not enough rights to send text messages to the chat')
      }
      const retryAfter = flood.admit(chatId, to.kind === 'private' ? 'private' : 'group', now)
      if (retryAfter > 0) {
        flood.recordLimited(chatId, now)
        throw tooManyRequests(retryAfter)
      }
      const content = {
        date: store.unixNow(),
        text: formatted.text,
        ...(entities.length > 0 ? { entities } : {}),
        ...(preview ? { link_preview_options: preview } : {}),
        ...(replyMarkup ? { reply_markup: replyMarkup } : {}),
      }
      let message: Message
      if (to.kind === 'private') {
        message = store.pushPrivateMessage(to.userId, (message_id) => ({
          message_id,
          from: store.botUser(),
          chat: store.privateChat(to.userId),
          ...content,
        }))
      } else if (to.chat.type === 'channel') {
        const chat = store.chatObject(to.chat)
        message = store.pushChatMessage(to.chat, (message_id) => ({
          message_id,
          sender_chat: chat,
          chat,
          ...content,
        }))
      } else {
        const chat = store.chatObject(to.chat)
        message = store.pushChatMessage(to.chat, (message_id) => ({
          message_id,
          from: store.botUser(),
          chat,
          ...content,
        }))
      }
      flood.recordSent(chatId, now)
      return message as MethodResult<'sendMessage'>
    },

    createChatInviteLink: (args) => {
      const to = target(args, 'write')
      const settings = linkSettings(args)
      const chat = requireLinkRights(to)
      return store.linkObject(store.createLink(chat.id, config.botId, settings))
    },

    editChatInviteLink: (args) => {
      const to = target(args, 'write')
      const settings = linkSettings(args)
      const chat = requireLinkRights(to)
      const link = linkIn(chat, args.string('invite_link'))
      if (link.isRevoked) throw badRequest('INVITE_HASH_EXPIRED')
      if (link.isPrimary) throw badRequest("can't edit primary invite link")
      Object.assign(link, settings)
      return store.linkObject(link)
    },

    revokeChatInviteLink: (args) => {
      const to = target(args, 'write')
      const chat = requireLinkRights(to)
      const link = linkIn(chat, args.string('invite_link'))
      if (!link.isRevoked) {
        link.isRevoked = true
        // Revoking the primary link gives the chat a new one, as in Telegram's apps.
        if (link.isPrimary) store.createLink(chat.id, config.botId, { isPrimary: true })
        // Requests made through a revoked link are dropped with it.
        for (const [requester, request] of chat.joinRequests)
          if (request.inviteHash === link.hash) chat.joinRequests.delete(requester)
      }
      return store.linkObject(link)
    },

    approveChatJoinRequest: (args) => {
      const id = userId(args)
      const chat = requireJoinRequestRights(target(args, 'write'))
      const request = chat.joinRequests.get(id)
      if (!request) throw badRequest('HIDE_REQUESTER_MISSING')
      chat.joinRequests.delete(id)
      if (isActiveMember(store.memberOf(chat, id))) throw badRequest('USER_ALREADY_PARTICIPANT')
      chat.decisions.set(id, { decision: 'approved', at: store.unixNow() })
      store.changeMember(
        chat,
        id,
        { ...store.membership(id, 'member', store.unixNow()), inviteHash: request.inviteHash },
        store.botUser(),
        { inviteHash: request.inviteHash, viaJoinRequest: true },
      )
      return true
    },

    declineChatJoinRequest: (args) => {
      const id = userId(args)
      const chat = requireJoinRequestRights(target(args, 'write'))
      if (!chat.joinRequests.delete(id)) throw badRequest('HIDE_REQUESTER_MISSING')
      chat.decisions.set(id, { decision: 'declined', at: store.unixNow() })
      return true
    },

    banChatMember: (args) => {
      const id = userId(args)
      const to = target(args, 'write')
      if (to.kind === 'private') throw badRequest("can't ban members in private chats")
      const chat = to.chat
      if (!store.users.has(id) && id !== config.botId) throw badRequest('PARTICIPANT_ID_INVALID')
      const current = store.memberOf(chat, id)
      if (current?.status === 'creator') throw cantRemoveOwner()
      if (id === config.botId) throw cantRestrictSelf()
      if (!store.botRight(chat, 'can_restrict_members')) throw notEnoughRightsToRestrict()
      if (current?.status === 'administrator') throw userIsAdministrator()
      // Telegram bans for good when until_date is under 30 seconds or over 366 days away.
      const now = store.unixNow()
      const requested = args.integer('until_date', 0)
      const untilDate = requested < now + 30 || requested > now + 366 * 86_400 ? 0 : requested
      chat.joinRequests.delete(id)
      if (args.bool('revoke_messages'))
        chat.messages = chat.messages.filter((message) => message.from?.id !== id)
      store.changeMember(
        chat,
        id,
        { ...store.membership(id, 'kicked', current?.joinedAt ?? now), untilDate, isMember: false },
        store.botUser(),
      )
      return true
    },

    unbanChatMember: (args) => {
      const id = userId(args)
      const to = target(args, 'write')
      if (to.kind === 'private') throw supergroupOrChannelOnly()
      const chat = to.chat
      const current = store.memberOf(chat, id)
      if (args.bool('only_if_banned') && current?.status !== 'kicked') return true
      if (!store.users.has(id) && id !== config.botId) throw badRequest('PARTICIPANT_ID_INVALID')
      if (current?.status === 'creator') throw cantRemoveOwner()
      if (id === config.botId) throw cantRestrictSelf()
      if (!store.botRight(chat, 'can_restrict_members')) throw notEnoughRightsToRestrict()
      if (current?.status === 'administrator') throw userIsAdministrator()
      // Without only_if_banned this also removes a member: afterwards they are out but may join again.
      store.changeMember(
        chat,
        id,
        { ...store.membership(id, 'left', store.unixNow()), isMember: false },
        store.botUser(),
      )
      return true
    },

    getChatMember: (args) => {
      const id = userId(args)
      const to = target(args, 'read')
      const user = store.userObject(id)
      if (!user) throw userNotFound()
      if (to.kind === 'private') {
        const inChat = id === to.userId || id === config.botId
        return (inChat ? { status: 'member', user } : { status: 'left', user }) satisfies ChatMember
      }
      return store.memberObject(to.chat, id)
    },

    getChat: (args) => {
      const to = target(args, 'read')
      if (to.kind === 'chat') return store.fullChat(to.chat)
      const chat = store.privateChat(to.userId)
      const info: ChatFullInfo.PrivateChat = {
        ...chat,
        accent_color_id: 0,
        max_reaction_count: 11,
        accepted_gift_types: {
          unlimited_gifts: true,
          limited_gifts: true,
          unique_gifts: true,
          premium_subscription: true,
          gifts_from_channels: true,
        },
      }
      if (chat.username) info.active_usernames = [chat.username]
      return info
    },

    getChatAdministrators: (args) => {
      const to = target(args, 'read')
      if (to.kind === 'private') throw badRequest('there are no administrators in the private chat')
      return store
        .members(to.chat)
        .filter(
          (member): member is ChatMemberOwner | ChatMemberAdministrator =>
            member.status === 'creator' || member.status === 'administrator',
        )
    },

    getChatMemberCount: (args) => {
      const to = target(args, 'read')
      if (to.kind === 'private') return 2
      return store.memberCount(to.chat)
    },

    leaveChat: (args) => {
      const to = target(args, 'read')
      if (to.kind === 'private') throw badRequest("can't leave private chats")
      const bot = store.botMembership(to.chat)
      if (bot?.status === 'creator') throw badRequest("can't leave chat as its owner")
      store.changeMember(
        to.chat,
        config.botId,
        { ...store.membership(config.botId, 'left', store.unixNow()), isMember: false },
        store.botUser(),
      )
      return true
    },

    setMyCommands: (args) => {
      const raw = args.json('commands', 'commands')
      const list = raw === undefined ? [] : raw
      if (!Array.isArray(list)) throw badRequest('Expected an Array of BotCommand')
      const commands: BotCommand[] = list.map((entry) => botCommand(entry))
      if (commands.length > 100) throw badRequest('BOT_COMMANDS_TOO_MUCH')
      store.commands.set(commandsKey(args), commands)
      return true
    },

    getMyCommands: (args) => structuredClone(store.commands.get(commandsKey(args)) ?? []),

    deleteMyCommands: (args) => {
      store.commands.delete(commandsKey(args))
      return true
    },
  }

  const byName = new Map<string, { name: EmulatedMethod; handler: Handler<EmulatedMethod> }>()
  for (const name of Object.keys(handlers) as EmulatedMethod[]) {
    // Bot API method names are case-insensitive.
    byName.set(name.toLowerCase(), { name, handler: handlers[name] as Handler<EmulatedMethod> })
  }
  return byName
}

/** allowed_updates that does not parse is ignored, as the Bot API ignores it. */
function safeJson(args: Args, name: string): unknown {
  try {
    return args.json(name, name)
  } catch {
    return undefined
  }
}

function botCommand(raw: unknown): BotCommand {
  const fail = (message: string) => badRequest(`can't parse BotCommand: ${message}`)
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw fail('expected an Object')
  const entry = raw as Record<string, unknown>
  for (const field of ['command', 'description'] as const) {
    if (!(field in entry)) throw fail(`Can't find field "${field}"`)
    if (typeof entry[field] !== 'string') throw fail(`Field "${field}" must be of type String`)
  }
  const command = String(entry.command).trim().replace(/^\//, '')
  const description = String(entry.description).trim()
  if (command === '') throw badRequest('command must be non-empty')
  if ([...command].length > 32) throw badRequest('command length must not exceed 32')
  if (!/^[a-z0-9_]+$/.test(command)) throw badRequest('BOT_COMMAND_INVALID')
  if (description === '') throw badRequest('command description must be non-empty')
  if ([...description].length > 256) throw badRequest('command description length must not exceed 256')
  return { command, description }
}

function commandsKey(args: Args): string {
  let scope = 'default'
  const raw = safeJson(args, 'scope')
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) {
    const given = raw as { type?: unknown; chat_id?: unknown; user_id?: unknown }
    scope = [given.type, given.chat_id, given.user_id].filter((part) => part !== undefined).join(':')
  }
  return `${scope}:${args.string('language_code') ?? ''}`
}
