import type {
  ChatFullInfo,
  ChatInviteLink,
  ChatMemberAdministrator,
  ChatMemberBanned,
  ChatMemberLeft,
  ChatMemberMember,
  ChatMemberOwner,
  ChatMemberRestricted,
  Message,
  User,
  UserFromGetMe,
  WebhookInfo,
} from '@grammyjs/types'
import { Bot, GrammyError } from 'grammy'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type Emulator, startEmulator } from '../src/server'
import { expectShape, USER_KEYS } from './telegram-shapes'

/**
 * Contract tests: the real grammY client, configured as the app configures it (client.apiRoot),
 * against the emulator. Every answer is checked against @grammyjs/types, the Bot API types grammY
 * publishes, and every failure against Telegram's own error_code and description.
 */

let emulator: Emulator
let bot: Bot

beforeAll(async () => {
  emulator = await startEmulator()
})

beforeEach(() => {
  emulator.telegram.reset()
  bot = new Bot(emulator.telegram.config.botToken, { client: { apiRoot: emulator.telegram.apiRoot } })
})

afterAll(async () => {
  await emulator.close()
})

const cfg = () => emulator.telegram.config
const channel = () => cfg().chats[0]!.id
const vip = () => cfg().chats[1]!.id
const nfl = () => cfg().chats[2]!.id
const JORDAN = 1000000002
const ALEX = 1000000003

async function grammyError(promise: Promise<unknown>): Promise<GrammyError> {
  try {
    await promise
  } catch (error) {
    expect(error).toBeInstanceOf(GrammyError)
    return error as GrammyError
  }
  throw new Error('expected the call to fail')
}

async function fails(promise: Promise<unknown>, code: number, description: string) {
  const error = await grammyError(promise)
  expect([error.error_code, error.description]).toEqual([code, description])
  return error
}

const ADMIN_RIGHT_KEYS = {
  can_be_edited: true,
  is_anonymous: true,
  can_manage_chat: true,
  can_delete_messages: true,
  can_manage_video_chats: true,
  can_restrict_members: true,
  can_promote_members: true,
  can_change_info: true,
  can_invite_users: true,
  can_post_stories: true,
  can_edit_stories: true,
  can_delete_stories: true,
  can_send_welcome_messages: true,
} as const

describe('the bot and its webhook settings', () => {
  it('answers getMe as the configured bot', async () => {
    const me = await bot.api.getMe()
    expectShape<UserFromGetMe>(me, {
      ...USER_KEYS,
      username: true,
      can_join_groups: true,
      can_read_all_group_messages: true,
      supports_inline_queries: true,
      can_connect_to_business: true,
      has_main_web_app: true,
      has_topics_enabled: true,
      allows_users_to_create_topics: true,
      can_manage_bots: true,
      supports_join_request_queries: true,
    })
    expect(me).toMatchObject({ id: 7000000001, is_bot: true, username: 'edgeclub_demo_bot' })
    // Telegram's bot id is the number before the colon of its token.
    expect(String(me.id)).toBe(cfg().botToken.split(':')[0])
  })

  it('sets, reports and deletes the webhook with Telegram descriptions', async () => {
    const raw = async (method: string, body: Record<string, unknown>) =>
      (await fetch(`${emulator.telegram.apiRoot}/bot${cfg().botToken}/${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then((response) => response.json())) as { ok: boolean; result: unknown; description?: string }

    const none = await bot.api.getWebhookInfo()
    expect(none).toEqual({ url: '', has_custom_certificate: false, pending_update_count: 0 })
    const url = 'https://app.example/telegram/webhook'
    expect(await raw('setWebhook', { url, secret_token: 'Sec_ret-1' })).toEqual({
      ok: true,
      result: true,
      description: 'Webhook was set',
    })
    expect((await raw('setWebhook', { url, secret_token: 'Sec_ret-1' })).description).toBe(
      'Webhook is already set',
    )
    await bot.api.setWebhook(url, {
      secret_token: 'Sec_ret-1',
      allowed_updates: ['message', 'chat_join_request', 'chat_member', 'my_chat_member'],
      max_connections: 10,
    })
    const info = await bot.api.getWebhookInfo()
    expectShape<WebhookInfo>(
      info,
      { has_custom_certificate: true, pending_update_count: true },
      { url: true, ip_address: true, max_connections: true, allowed_updates: true },
    )
    expect(info).toMatchObject({
      url,
      pending_update_count: 0,
      max_connections: 10,
      allowed_updates: ['message', 'chat_join_request', 'chat_member', 'my_chat_member'],
    })
    // The secret never shows, nor does it reach the request log.
    expect(JSON.stringify(info)).not.toContain('Sec_ret-1')
    expect(JSON.stringify(emulator.telegram.state().log)).not.toContain('Sec_ret-1')

    expect(await raw('deleteWebhook', {})).toEqual({
      ok: true,
      result: true,
      description: 'Webhook was deleted',
    })
    expect((await raw('deleteWebhook', {})).description).toBe('Webhook is already deleted')
    expect((await bot.api.getWebhookInfo()).url).toBe('')
  })

  it('refuses a bad webhook URL or secret as Telegram does', async () => {
    await fails(bot.api.setWebhook('not a url'), 400, 'Bad Request: invalid webhook URL specified')
    await fails(
      bot.api.setWebhook('ftp://example.com/hook'),
      400,
      'Bad Request: invalid webhook URL specified',
    )
    await fails(
      bot.api.setWebhook('https://example.com/hook', { secret_token: 'has space' }),
      400,
      'Bad Request: secret token contains unallowed characters',
    )
    await fails(
      bot.api.setWebhook('https://example.com/hook', { secret_token: 'x'.repeat(257) }),
      400,
      'Bad Request: secret token is too long',
    )
    expect((await bot.api.getWebhookInfo()).url).toBe('')
  })

  it('keeps the bot commands per scope and checks them', async () => {
    await bot.api.setMyCommands([
      { command: 'status', description: 'Your plan and its end date' },
      { command: '/links', description: 'Send my join links again' },
      { command: 'stop', description: 'Disconnect Telegram' },
    ])
    expect(await bot.api.getMyCommands()).toEqual([
      { command: 'status', description: 'Your plan and its end date' },
      { command: 'links', description: 'Send my join links again' },
      { command: 'stop', description: 'Disconnect Telegram' },
    ])
    expect(await bot.api.getMyCommands({ scope: { type: 'all_group_chats' } })).toEqual([])
    await fails(
      bot.api.setMyCommands([{ command: 'Bad-Command', description: 'x' }]),
      400,
      'Bad Request: BOT_COMMAND_INVALID',
    )
    await fails(
      bot.api.setMyCommands([{ command: 'ok', description: ' ' }]),
      400,
      'Bad Request: command description must be non-empty',
    )
    await bot.api.deleteMyCommands()
    expect(await bot.api.getMyCommands()).toEqual([])
  })
})

describe('sendMessage', () => {
  it('posts to a channel as the channel, to a supergroup as the bot', async () => {
    const post = await bot.api.sendMessage(channel(), 'NFL: Chiefs -3 (2u)')
    expectShape<Message.TextMessage>(
      post,
      { message_id: true, date: true, chat: true, text: true },
      { sender_chat: true },
    )
    expect(post.chat).toEqual({ id: channel(), title: 'EdgeClub Signals', type: 'channel' })
    expect(post.sender_chat).toEqual(post.chat)

    const message = await bot.api.sendMessage(vip(), 'Welcome to VIP')
    expectShape<Message.TextMessage>(
      message,
      { message_id: true, date: true, chat: true, text: true },
      { from: true },
    )
    expectShape<User>(message.from, USER_KEYS, { username: true })
    expect(message.from).toEqual({
      id: 7000000001,
      is_bot: true,
      first_name: 'EdgeClub',
      username: 'edgeclub_demo_bot',
    })
    expect(message.message_id).toBe(1)
    expect((await bot.api.sendMessage(vip(), 'Second')).message_id).toBe(2)
    expect(emulator.telegram.messages(vip()).map((entry) => ('text' in entry ? entry.text : ''))).toEqual([
      'Welcome to VIP',
      'Second',
    ])
  })

  it('parses HTML and MarkdownV2 into entities and finds links and commands itself', async () => {
    const html = await bot.api.sendMessage(
      vip(),
      '<b>Chiefs -3</b> &amp; <i>over 47.5</i> — <a href="https://edgeclub.example/s/1">details</a> /status',
      { parse_mode: 'HTML' },
    )
    expect(html.text).toBe('Chiefs -3 & over 47.5 — details /status')
    expect(html.entities).toEqual([
      { type: 'bold', offset: 0, length: 9 },
      { type: 'italic', offset: 12, length: 9 },
      { type: 'text_link', offset: 24, length: 7, url: 'https://edgeclub.example/s/1' },
      { type: 'bot_command', offset: 32, length: 7 },
    ])
    const markdown = await bot.api.sendMessage(vip(), '*Result:* WIN \\+2\\.0u\n`ticket 42`', {
      parse_mode: 'MarkdownV2',
    })
    expect(markdown.text).toBe('Result: WIN +2.0u\nticket 42')
    expect(markdown.entities).toEqual([
      { type: 'bold', offset: 0, length: 7 },
      { type: 'code', offset: 18, length: 9 },
    ])
    const plain = await bot.api.sendMessage(vip(), 'See https://edgeclub.example/dashboard.')
    expect(plain.entities).toEqual([{ type: 'url', offset: 4, length: 34 }])
  })

  it('answers Telegram errors for bad text', async () => {
    await fails(bot.api.sendMessage(vip(), ''), 400, 'Bad Request: message text is empty')
    await fails(bot.api.sendMessage(vip(), '   '), 400, 'Bad Request: message text is empty')
    await fails(bot.api.sendMessage(vip(), 'x'.repeat(4097)), 400, 'Bad Request: message is too long')
    await fails(
      bot.api.sendMessage(vip(), '<b>open', { parse_mode: 'HTML' }),
      400,
      `Bad Request: can't parse entities: Can't find end tag corresponding to start tag "b"`,
    )
    await fails(
      bot.api.sendMessage(vip(), 'a <blink>b</blink>', { parse_mode: 'HTML' }),
      400,
      `Bad Request: can't parse entities: Unsupported start tag "blink" at byte offset 2`,
    )
    await fails(
      bot.api.sendMessage(vip(), 'Odds 1.95!', { parse_mode: 'MarkdownV2' }),
      400,
      `Bad Request: can't parse entities: Character '.' is reserved and must be escaped with the preceding '\\'`,
    )
    await fails(
      bot.api.sendMessage(vip(), '*bold', { parse_mode: 'MarkdownV2' }),
      400,
      `Bad Request: can't parse entities: Can't find end of Bold entity at byte offset 0`,
    )
    await fails(
      bot.api.sendMessage(vip(), 'x', { parse_mode: 'Textile' as 'HTML' }),
      400,
      'Bad Request: unsupported parse_mode',
    )
    expect(emulator.telegram.messages(vip())).toEqual([])
  })

  it('keeps link preview options and an inline keyboard, and checks the keyboard', async () => {
    const message = await bot.api.sendMessage(vip(), 'Your links', {
      link_preview_options: { is_disabled: true },
      reply_markup: {
        inline_keyboard: [
          [{ text: 'Open dashboard', url: 'https://edgeclub.example/dashboard' }],
          [{ text: 'Stop', callback_data: 'stop' }],
        ],
      },
    })
    expect(message.link_preview_options).toEqual({ is_disabled: true })
    expect(message.reply_markup).toEqual({
      inline_keyboard: [
        [{ text: 'Open dashboard', url: 'https://edgeclub.example/dashboard' }],
        [{ text: 'Stop', callback_data: 'stop' }],
      ],
    })
    await fails(
      bot.api.sendMessage(vip(), 'x', {
        reply_markup: { inline_keyboard: [[{ text: 'Long', callback_data: 'x'.repeat(65) }]] },
      }),
      400,
      'Bad Request: BUTTON_DATA_INVALID',
    )
    await fails(
      bot.api.sendMessage(vip(), 'x', {
        reply_markup: { inline_keyboard: [[{ text: 'Nothing' } as never]] },
      }),
      400,
      "Bad Request: can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard",
    )
  })

  it('writes to a person only after they start the bot, and not once they block it', async () => {
    await fails(
      bot.api.sendMessage(JORDAN, 'hi'),
      403,
      "Forbidden: bot can't initiate conversation with a user",
    )
    await fails(bot.api.sendMessage(999_999_999, 'hi'), 400, 'Bad Request: chat not found')
    emulator.telegram.start(JORDAN, 'tok_1')
    const reply = await bot.api.sendMessage(JORDAN, 'Connected.')
    expect(reply.chat).toEqual({ id: JORDAN, type: 'private', first_name: 'Jordan', username: 'jordan_t' })
    expect(emulator.telegram.messages(JORDAN).map((entry) => ('text' in entry ? entry.text : ''))).toEqual([
      '/start tok_1',
      'Connected.',
    ])
    emulator.telegram.blockBot(JORDAN)
    await fails(bot.api.sendMessage(JORDAN, 'hi'), 403, 'Forbidden: bot was blocked by the user')
    emulator.telegram.start(JORDAN)
    await bot.api.sendMessage(JORDAN, 'Welcome back')
  })

  it('answers the errors of chats the bot cannot write to', async () => {
    await fails(bot.api.sendMessage(-1009999999999, 'x'), 400, 'Bad Request: chat not found')
    await fails(bot.api.sendMessage('', 'x'), 400, 'Bad Request: chat_id is empty')
    emulator.telegram.setBotMembership(nfl(), 'left')
    await fails(bot.api.sendMessage(nfl(), 'x'), 403, 'Forbidden: bot is not a member of the supergroup chat')
    emulator.telegram.setBotMembership(nfl(), 'kicked')
    await fails(bot.api.sendMessage(nfl(), 'x'), 403, 'Forbidden: bot was kicked from the supergroup chat')
    emulator.telegram.setBotMembership(channel(), 'administrator', { can_post_messages: false })
    await fails(
      bot.api.sendMessage(channel(), 'x'),
      400,
      'Bad Request: need administrator rights in the channel chat',
    )
  })
})

describe('invite links', () => {
  it('creates a join-request link with Telegram fields', async () => {
    const expire = Math.floor(Date.now() / 1000) + 3600
    const link = await bot.api.createChatInviteLink(vip(), {
      name: 'member 42',
      creates_join_request: true,
      expire_date: expire,
    })
    expectShape<ChatInviteLink>(
      link,
      { invite_link: true, creator: true, creates_join_request: true, is_primary: true, is_revoked: true },
      { name: true, expire_date: true, member_limit: true, pending_join_request_count: true },
    )
    expect(link).toMatchObject({
      creates_join_request: true,
      is_primary: false,
      is_revoked: false,
      name: 'member 42',
      expire_date: expire,
      pending_join_request_count: 0,
      creator: { id: 7000000001, is_bot: true },
    })
    expect(link.invite_link).toMatch(/^https:\/\/t\.me\/\+[A-Za-z0-9_-]{16}$/)

    const limited = await bot.api.createChatInviteLink(vip(), { member_limit: 1, name: 'x'.repeat(40) })
    expect(limited).toMatchObject({ member_limit: 1, creates_join_request: false, name: 'x'.repeat(32) })
    expect(limited).not.toHaveProperty('pending_join_request_count')
  })

  it('refuses what Telegram refuses', async () => {
    await fails(
      bot.api.createChatInviteLink(vip(), { member_limit: 1, creates_join_request: true }),
      400,
      "Bad Request: member limit can't be specified for links requiring administrator approval",
    )
    await fails(
      bot.api.createChatInviteLink(vip(), { expire_date: Math.floor(Date.now() / 1000) - 10 }),
      400,
      'Bad Request: EXPIRE_DATE_INVALID',
    )
    emulator.telegram.start(JORDAN)
    await fails(
      bot.api.createChatInviteLink(JORDAN),
      400,
      "Bad Request: can't invite members to a private chat",
    )
    emulator.telegram.setBotMembership(nfl(), 'administrator', { can_invite_users: false })
    await fails(
      bot.api.createChatInviteLink(nfl()),
      400,
      'Bad Request: not enough rights to manage chat invite link',
    )
    emulator.telegram.setBotMembership(nfl(), 'member')
    await fails(
      bot.api.createChatInviteLink(nfl()),
      400,
      'Bad Request: not enough rights to manage chat invite link',
    )
  })

  it('edits and revokes a link; a revoked or used-up link cannot be used', async () => {
    const link = await bot.api.createChatInviteLink(vip(), { member_limit: 1 })
    const edited = await bot.api.editChatInviteLink(vip(), link.invite_link, {
      name: 'renamed',
      member_limit: 2,
    })
    expect(edited).toMatchObject({ invite_link: link.invite_link, name: 'renamed', member_limit: 2 })
    emulator.telegram.joinByLink(JORDAN, link.invite_link)
    emulator.telegram.joinByLink(ALEX, link.invite_link)
    const stranger = emulator.telegram.createUser({ first_name: 'Sam', username: 'sam_late' })
    expect(() => emulator.telegram.joinByLink(stranger.id, link.invite_link)).toThrow(
      'reached its member limit',
    )

    const revoked = await bot.api.revokeChatInviteLink(vip(), link.invite_link)
    expect(revoked).toMatchObject({ invite_link: link.invite_link, is_revoked: true })
    await bot.api.banChatMember(vip(), ALEX)
    await bot.api.unbanChatMember(vip(), ALEX)
    expect(() => emulator.telegram.joinByLink(ALEX, link.invite_link)).toThrow('revoked')
    await fails(
      bot.api.editChatInviteLink(vip(), link.invite_link, { name: 'x' }),
      400,
      'Bad Request: INVITE_HASH_EXPIRED',
    )
    await fails(
      bot.api.revokeChatInviteLink(nfl(), link.invite_link),
      400,
      'Bad Request: INVITE_HASH_EXPIRED',
    )
    await fails(
      bot.api.revokeChatInviteLink(vip(), 'https://example.com/nothing'),
      400,
      'Bad Request: wrong invite link',
    )
  })

  it('expires a link by its expire_date on the emulated clock', async () => {
    const link = await bot.api.createChatInviteLink(vip(), {
      expire_date: Math.floor(Date.now() / 1000) + 60,
    })
    emulator.telegram.advanceTime(61)
    expect(() => emulator.telegram.joinByLink(JORDAN, link.invite_link)).toThrow('expired')
  })
})

describe('join requests', () => {
  it('approves a request: the person becomes a member', async () => {
    const link = await bot.api.createChatInviteLink(vip(), { creates_join_request: true })
    const outcome = emulator.telegram.joinByLink(JORDAN, link.invite_link)
    expect(outcome.outcome).toBe('requested')
    expect(
      emulator.telegram.inviteLinks(vip()).find((entry) => entry.invite_link === link.invite_link),
    ).toMatchObject({
      pending_join_request_count: 1,
    })
    expect((await bot.api.getChatMember(vip(), JORDAN)).status).toBe('left')
    expect(await bot.api.approveChatJoinRequest(vip(), JORDAN)).toBe(true)
    const member = await bot.api.getChatMember(vip(), JORDAN)
    expectShape<ChatMemberMember>(member, { status: true, user: true })
    expect(member).toEqual({
      status: 'member',
      user: { id: JORDAN, is_bot: false, first_name: 'Jordan', username: 'jordan_t', language_code: 'en' },
    })
    await fails(bot.api.approveChatJoinRequest(vip(), JORDAN), 400, 'Bad Request: HIDE_REQUESTER_MISSING')
    // The bot may write to someone who asked to join, for a while, even before they start it.
    emulator.telegram.joinByLink(ALEX, link.invite_link)
    await bot.api.sendMessage(ALEX, 'We got your request.')
  })

  it('declines a request: the person stays out and may ask again', async () => {
    const link = await bot.api.createChatInviteLink(vip(), { creates_join_request: true })
    emulator.telegram.joinByLink(ALEX, link.invite_link)
    expect(await bot.api.declineChatJoinRequest(vip(), ALEX)).toBe(true)
    expect((await bot.api.getChatMember(vip(), ALEX)).status).toBe('left')
    await fails(bot.api.declineChatJoinRequest(vip(), ALEX), 400, 'Bad Request: HIDE_REQUESTER_MISSING')
    expect(emulator.telegram.joinByLink(ALEX, link.invite_link).outcome).toBe('requested')
  })

  it('refuses to approve someone already in, and without the right to add members', async () => {
    const link = await bot.api.createChatInviteLink(vip(), { creates_join_request: true })
    emulator.telegram.joinByLink(JORDAN, link.invite_link)
    emulator.telegram.addMember(vip(), JORDAN)
    await fails(bot.api.approveChatJoinRequest(vip(), JORDAN), 400, 'Bad Request: USER_ALREADY_PARTICIPANT')
    emulator.telegram.joinByLink(ALEX, link.invite_link)
    emulator.telegram.setBotMembership(vip(), 'administrator', { can_invite_users: false })
    await fails(
      bot.api.approveChatJoinRequest(vip(), ALEX),
      400,
      'Bad Request: not enough rights to manage chat join requests',
    )
    await fails(bot.api.approveChatJoinRequest(vip(), 0), 400, 'Bad Request: invalid user_id specified')
  })
})

describe('members, bans and chats', () => {
  it('answers every member status with its Bot API shape', async () => {
    const owner = await bot.api.getChatMember(vip(), cfg().ownerId)
    expectShape<ChatMemberOwner>(owner, { status: true, user: true, is_anonymous: true })
    const me = await bot.api.getChatMember(vip(), cfg().botId)
    expectShape<ChatMemberAdministrator>(
      me,
      { status: true, user: true, ...ADMIN_RIGHT_KEYS },
      { can_pin_messages: true },
    )
    expect(me).toMatchObject({ status: 'administrator', can_invite_users: true, can_restrict_members: true })
    const channelMe = await bot.api.getChatMember(channel(), cfg().botId)
    expectShape<ChatMemberAdministrator>(
      channelMe,
      { status: true, user: true, ...ADMIN_RIGHT_KEYS },
      { can_post_messages: true, can_edit_messages: true },
    )
    const left = await bot.api.getChatMember(vip(), ALEX)
    expectShape<ChatMemberLeft>(left, { status: true, user: true })
    emulator.telegram.addMember(vip(), ALEX)
    await bot.api.banChatMember(vip(), ALEX)
    const banned = await bot.api.getChatMember(vip(), ALEX)
    expectShape<ChatMemberBanned>(banned, { status: true, user: true, until_date: true })
    expect(banned).toMatchObject({ status: 'kicked', until_date: 0 })
    emulator.telegram.addMember(nfl(), JORDAN, 'restricted')
    const restricted = await bot.api.getChatMember(nfl(), JORDAN)
    expectShape<ChatMemberRestricted>(restricted, {
      status: true,
      user: true,
      is_member: true,
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
      can_change_info: true,
      can_invite_users: true,
      can_edit_tag: true,
      can_pin_messages: true,
      can_manage_topics: true,
      until_date: true,
    })
    expect(await bot.api.getChatMemberCount(nfl())).toBe(3)
    await fails(bot.api.getChatMember(vip(), 424_242), 400, 'Bad Request: user not found')
  })

  it('bans until a date, lifts a ban when it runs out, and unbans', async () => {
    emulator.telegram.addMember(vip(), JORDAN)
    const now = Math.floor(Date.now() / 1000)
    await bot.api.banChatMember(vip(), JORDAN, { until_date: now + 3600 })
    expect(await bot.api.getChatMember(vip(), JORDAN)).toMatchObject({
      status: 'kicked',
      until_date: now + 3600,
    })
    expect(await bot.api.getChatMemberCount(vip())).toBe(2)
    emulator.telegram.advanceTime(3601)
    expect((await bot.api.getChatMember(vip(), JORDAN)).status).toBe('left')

    // Under 30 seconds means for good.
    await bot.api.banChatMember(vip(), JORDAN, { until_date: Math.floor(Date.now() / 1000) + 3600 + 10 })
    expect(await bot.api.getChatMember(vip(), JORDAN)).toMatchObject({ status: 'kicked', until_date: 0 })
    expect(await bot.api.unbanChatMember(vip(), JORDAN, { only_if_banned: true })).toBe(true)
    expect((await bot.api.getChatMember(vip(), JORDAN)).status).toBe('left')
  })

  it('removes a member with unban (a kick), but not with only_if_banned', async () => {
    emulator.telegram.addMember(vip(), JORDAN)
    await bot.api.unbanChatMember(vip(), JORDAN, { only_if_banned: true })
    expect((await bot.api.getChatMember(vip(), JORDAN)).status).toBe('member')
    await bot.api.unbanChatMember(vip(), JORDAN)
    expect((await bot.api.getChatMember(vip(), JORDAN)).status).toBe('left')
  })

  it('refuses bans Telegram refuses', async () => {
    await fails(bot.api.banChatMember(vip(), cfg().ownerId), 400, "Bad Request: can't remove chat owner")
    await fails(bot.api.banChatMember(vip(), cfg().botId), 400, "Bad Request: can't restrict self")
    emulator.telegram.addMember(vip(), ALEX, 'administrator')
    await fails(bot.api.banChatMember(vip(), ALEX), 400, 'Bad Request: user is an administrator of the chat')
    emulator.telegram.setBotMembership(vip(), 'administrator', { can_restrict_members: false })
    await fails(
      bot.api.banChatMember(vip(), JORDAN),
      400,
      'Bad Request: not enough rights to restrict/unrestrict chat member',
    )
    emulator.telegram.start(JORDAN)
    await fails(bot.api.banChatMember(JORDAN, JORDAN), 400, "Bad Request: can't ban members in private chats")
    await fails(
      bot.api.unbanChatMember(JORDAN, JORDAN),
      400,
      'Bad Request: method is available for supergroup and channel chats only',
    )
  })

  it('a ban removes a pending request and a banned person cannot join', async () => {
    const link = await bot.api.createChatInviteLink(vip(), { creates_join_request: true })
    emulator.telegram.joinByLink(ALEX, link.invite_link)
    await bot.api.banChatMember(vip(), ALEX)
    expect(emulator.telegram.joinRequests(vip())).toEqual([])
    expect(() => emulator.telegram.joinByLink(ALEX, link.invite_link)).toThrow('banned')
  })

  it('answers getChat with the full chat and getChatMemberCount', async () => {
    const info = await bot.api.getChat(vip())
    expectShape<ChatFullInfo.SupergroupChat>(
      info,
      {
        id: true,
        type: true,
        title: true,
        accent_color_id: true,
        max_reaction_count: true,
        accepted_gift_types: true,
      },
      { description: true, invite_link: true, permissions: true },
    )
    expect(info).toMatchObject({ id: vip(), type: 'supergroup', title: 'EdgeClub VIP' })
    expect(info.invite_link).toMatch(/^https:\/\/t\.me\/\+/)
    const channelInfo = await bot.api.getChat(channel())
    expectShape<ChatFullInfo.ChannelChat>(
      channelInfo,
      {
        id: true,
        type: true,
        title: true,
        accent_color_id: true,
        max_reaction_count: true,
        accepted_gift_types: true,
      },
      { description: true, invite_link: true },
    )
    emulator.telegram.start(JORDAN)
    const person = await bot.api.getChat(JORDAN)
    expectShape<ChatFullInfo.PrivateChat>(
      person,
      {
        id: true,
        type: true,
        first_name: true,
        accent_color_id: true,
        max_reaction_count: true,
        accepted_gift_types: true,
      },
      { username: true, active_usernames: true },
    )
    expect(await bot.api.getChatMemberCount(vip())).toBe(2)
    expect(await bot.api.getChatAdministrators(vip())).toHaveLength(2)
  })

  it('leaves a chat, after which the chat refuses the bot', async () => {
    expect(await bot.api.leaveChat(nfl())).toBe(true)
    await fails(bot.api.getChat(nfl()), 403, 'Forbidden: bot is not a member of the supergroup chat')
    expect(emulator.telegram.pendingUpdates().map((update) => Object.keys(update)[1])).toEqual([
      'my_chat_member',
    ])
  })
})
