import { type LedgerEntry, signalAnnouncement, witnessText } from '@edgeclub/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventually } from './helpers/billing'
import { as, register, type Session } from './helpers/members'
import {
  API,
  addChatPlace,
  botButtons,
  botSaid,
  chatByTitle,
  connectTelegram,
  settled,
  startTelegramHarness,
  type TelegramHarness,
  telegramStatus,
} from './helpers/telegram'
import { testClock } from './helpers/test-app'

const DAY = 24 * 3600 * 1000

/**
 * A Telegram-only club (no Discord configured): the bot on the emulator, its webhook set by the app
 * at start, chats added by the owner as places.
 */
describe('Telegram', () => {
  const clock = testClock()
  let h: TelegramHarness
  let vip: { id: string; title: string }
  let nfl: { id: string; title: string }

  beforeAll(async () => {
    h = await startTelegramHarness({ clock })
    vip = await addChatPlace(h, 'EdgeClub VIP')
    nfl = await addChatPlace(h, 'NFL Picks', ['NFL'])
  })
  afterAll(async () => {
    await h.close()
  })

  const grant = (userId: string, days = 30, planId?: string) =>
    as(h.t.app, h.admin.accessToken, {
      method: 'POST',
      url: `${API}/admin/users/${userId}/grant`,
      payload: { days, ...(planId ? { planId } : {}) },
    }).then((response) => {
      if (response.statusCode !== 200) throw new Error(response.body)
    })
  const vipChat = () => chatByTitle(h.emulator, 'EdgeClub VIP').id
  const nflChat = () => chatByTitle(h.emulator, 'NFL Picks').id
  const linkTo = async (member: Session, title: string) =>
    (
      await eventually(
        () => telegramStatus(h, member),
        (status) =>
          status.chats.some(
            (chat: { title: string; inviteLink: string | null }) => chat.title === title && chat.inviteLink,
          ),
      )
    ).chats.find((chat: { title: string }) => chat.title === title).inviteLink as string

  /** A member with access and a connected Telegram account who joined VIP through their link. */
  async function memberInVip(name: string) {
    const member = await register(h.t.app)
    await grant(member.user.id)
    const { user } = await connectTelegram(h, member, { first_name: name, username: name })
    const link = await linkTo(member, 'EdgeClub VIP')
    expect(h.emulator.telegram.joinByLink(user.id, link).outcome).toBe('requested')
    await settled(h)
    expect(h.emulator.telegram.member(vipChat(), user.id).status).toBe('member')
    return { member, user, link }
  }

  it('POST /telegram/connect gives a one-time deep link; GET /telegram/status answers connected, username and chats', async () => {
    const member = await register(h.t.app)
    await grant(member.user.id)
    const before = await telegramStatus(h, member)
    expect(before).toMatchObject({ configured: true, connected: false, reminders: false, banned: false })
    expect(before.username).toBeUndefined()

    const connect = await as(h.t.app, member.accessToken, { method: 'POST', url: `${API}/telegram/connect` })
    expect(connect.statusCode).toBe(200)
    const { url, expiresAt } = connect.json().data
    expect(url).toMatch(
      new RegExp(`^${h.emulator.telegram.pageLinkBase}/edgeclub_demo_bot\\?start=[A-Za-z0-9_-]{32}$`),
    )
    const minutes = (Date.parse(expiresAt) - clock.now().valueOf()) / 60_000
    expect(minutes).toBeGreaterThan(9)
    expect(minutes).toBeLessThanOrEqual(10)

    const person = h.emulator.telegram.createUser({ first_name: 'Casey', username: 'casey_tg' })
    h.emulator.telegram.start(person.id, new URL(url).searchParams.get('start')!)
    await settled(h)
    const status = await telegramStatus(h, member)
    expect(status).toMatchObject({ connected: true, username: '@casey_tg' })
    // The plan grants every chat (the default): one link each, sent by the bot as URL buttons.
    expect(status.chats.map((chat: { title: string; member: boolean }) => [chat.title, chat.member])).toEqual(
      [
        ['EdgeClub VIP', false],
        ['NFL Picks', false],
      ],
    )
    expect(botSaid(h, person.id)[0]).toMatch(/^Connected\n/)
    expect(botButtons(h, person.id).map((button) => button.text)).toEqual([
      'Join EdgeClub VIP',
      'Join NFL Picks',
    ])
    expect(botButtons(h, person.id).map((button) => button.url)).toEqual(
      status.chats.map((chat: { inviteLink: string }) => chat.inviteLink),
    )
  })

  it('the webhook answers 401 without the right X-Telegram-Bot-Api-Secret-Token and changes nothing; an update is handled once', async () => {
    const member = await register(h.t.app)
    const connect = await as(h.t.app, member.accessToken, { method: 'POST', url: `${API}/telegram/connect` })
    const token = new URL(connect.json().data.url).searchParams.get('start')!
    const person = h.emulator.telegram.createUser({ first_name: 'Webhook', username: 'webhook_wes' })
    // They talked to the bot before (so it may answer them); that update goes through the real webhook.
    h.emulator.telegram.start(person.id)
    await settled(h)
    const update = {
      update_id: 900_000_001,
      message: {
        message_id: 77,
        date: Math.floor(Date.now() / 1000),
        chat: { id: person.id, type: 'private', first_name: 'Webhook', username: 'webhook_wes' },
        from: { id: person.id, is_bot: false, first_name: 'Webhook', username: 'webhook_wes' },
        text: `/start ${token}`,
        entities: [{ type: 'bot_command', offset: 0, length: 6 }],
      },
    }
    const post = (headers: Record<string, string | undefined>) =>
      h.t.app.inject({
        method: 'POST',
        url: `${API}/webhooks/telegram`,
        payload: update,
        headers: Object.fromEntries(
          Object.entries(headers).filter(([, value]) => value !== undefined),
        ) as Record<string, string>,
      })
    for (const headers of [
      {},
      { 'x-telegram-bot-api-secret-token': `${h.secret}x` },
      { 'x-telegram-bot-api-secret-token': '' },
    ]) {
      const refused = await post(headers)
      expect(refused.statusCode).toBe(401)
      expect(refused.json()).toMatchObject({ success: false, error: 'UNAUTHORIZED' })
    }
    // A body that is not an update is refused the same way without the secret (checked first).
    expect(
      (await h.t.app.inject({ method: 'POST', url: `${API}/webhooks/telegram`, payload: 'x' })).statusCode,
    ).toBe(401)
    expect((await telegramStatus(h, member)).connected).toBe(false)
    const recorded = await h.t.database.db
      .selectFrom('webhook_events')
      .select('id')
      .where('id', '=', `telegram:${update.update_id}`)
      .execute()
    expect(recorded).toEqual([])

    for (let delivery = 0; delivery < 2; delivery++) {
      const accepted = await post({ 'x-telegram-bot-api-secret-token': h.secret })
      expect(accepted.statusCode, accepted.body).toBe(200)
      expect(accepted.json().data).toEqual({ received: true })
    }
    await settled(h)
    expect((await telegramStatus(h, member)).connected).toBe(true)
    // Telegram retried the delivery: still one answer.
    expect(botSaid(h, person.id).filter((text) => text.startsWith('Connected'))).toHaveLength(1)
  })

  it('a start token works once and not after it expires', async () => {
    const member = await register(h.t.app)
    const connect = await as(h.t.app, member.accessToken, { method: 'POST', url: `${API}/telegram/connect` })
    const token = new URL(connect.json().data.url).searchParams.get('start')!
    const first = h.emulator.telegram.createUser({ first_name: 'First', username: 'first_finn' })
    const second = h.emulator.telegram.createUser({ first_name: 'Second', username: 'second_sam' })
    h.emulator.telegram.start(first.id, token)
    await settled(h)
    h.emulator.telegram.start(second.id, token)
    await settled(h)
    expect(botSaid(h, second.id).at(-1)).toMatch(/^This link has already been used\n/)
    expect((await telegramStatus(h, member)).username).toBe('@first_finn')

    const later = await as(h.t.app, member.accessToken, { method: 'POST', url: `${API}/telegram/connect` })
    const stale = new URL(later.json().data.url).searchParams.get('start')!
    clock.advance(11 * 60_000)
    try {
      h.emulator.telegram.start(second.id, stale)
      await settled(h)
    } finally {
      clock.reset()
    }
    expect(botSaid(h, second.id).at(-1)).toMatch(/^This link has expired\n/)
    h.emulator.telegram.start(second.id, 'made-up-token')
    await settled(h)
    expect(botSaid(h, second.id).at(-1)).toMatch(/^This link is not valid\n/)
    expect((await telegramStatus(h, member)).username).toBe('@first_finn')
  })

  it('two syncs of a member at once after Start: one welcome with every chat, and the slower sync’s extra link is revoked, never sent', async () => {
    const member = await register(h.t.app)
    await grant(member.user.id)
    await settled(h)
    // The sync Start queues waits at Telegram for its first link, while another sync of the same member
    // (an access change heard by another instance) runs to its end.
    const slow = h.emulator.telegram.holdNext('createChatInviteLink')
    const connect = await as(h.t.app, member.accessToken, { method: 'POST', url: `${API}/telegram/connect` })
    const person = h.emulator.telegram.createUser({ first_name: 'Rae', username: 'rae_races' })
    h.emulator.telegram.start(person.id, new URL(connect.json().data.url).searchParams.get('start')!)
    await slow.reached
    expect(await h.t.app.services.telegram.syncMember(member.user.id)).toBe('synced')
    slow.release()
    await settled(h)

    // One answer to Start: tied, and a button for each chat, the links the member's status shows.
    expect(botSaid(h, person.id)).toHaveLength(1)
    expect(botSaid(h, person.id)[0]).toMatch(/^Connected\n/)
    const status = await telegramStatus(h, member)
    const links = status.chats.map((chat: { inviteLink: string }) => chat.inviteLink)
    expect(botButtons(h, person.id).map((button) => button.url)).toEqual(links)
    // Each chat has one live link of this member's; the one the slower sync made for VIP was revoked.
    const ours = (chatId: number) =>
      h.emulator.telegram
        .inviteLinks(chatId)
        .filter((link) => link.name === `EdgeClub ${member.user.id.slice(0, 8)}`)
    const [vipLink, nflLink] = links
    for (const [chatId, sent] of [
      [vipChat(), vipLink],
      [nflChat(), nflLink],
    ] as const)
      expect(
        ours(chatId)
          .filter((link) => !link.is_revoked)
          .map((link) => link.invite_link),
      ).toEqual([sent])
    expect(ours(vipChat()).filter((link) => link.is_revoked)).toHaveLength(1)
  })

  it('one Telegram account tied to two members: it moves to the second, and its chats follow that member', async () => {
    const { member: first, user } = await memberInVip('shared_sid')
    const second = await register(h.t.app)
    await connectTelegram(h, second, { first_name: 'Sid', username: 'shared_sid' })
    // One answer: tied (moved from the first member), and the second member's plan opens no chat.
    expect(botSaid(h, user.id).at(-1)).toMatch(
      /^Connected\n.*\(it was tied to another membership before\)\. Your plan does not open any Telegram chat/,
    )
    expect(await telegramStatus(h, first)).toMatchObject({ connected: false })
    expect(await telegramStatus(h, second)).toMatchObject({ connected: true, username: '@shared_sid' })
    // The second member has no plan: the account leaves the chat the first member's plan opened.
    await settled(h)
    expect(h.emulator.telegram.member(vipChat(), user.id).status).toBe('left')
    const rows = await h.t.database.db
      .selectFrom('telegram_accounts')
      .select(['user_id', 'disconnected_at'])
      .where('telegram_user_id', '=', String(user.id))
      .execute()
    expect(rows.filter((row) => row.disconnected_at === null).map((row) => row.user_id)).toEqual([
      second.user.id,
    ])
  })

  it("declines a stranger's join request with a member's link, and approves the member's own", async () => {
    const member = await register(h.t.app)
    await grant(member.user.id)
    const { user } = await connectTelegram(h, member, { first_name: 'Owner', username: 'link_owner' })
    const link = await linkTo(member, 'EdgeClub VIP')
    const stranger = h.emulator.telegram.createUser({ first_name: 'Alex', username: 'alex_stranger' })
    expect(h.emulator.telegram.joinByLink(stranger.id, link).outcome).toBe('requested')
    await settled(h)
    expect(h.emulator.telegram.member(vipChat(), stranger.id).status).toBe('left')
    expect(h.emulator.telegram.joinRequests(vipChat())).toEqual([])
    expect(botSaid(h, stranger.id).at(-1)).toMatch(/^EdgeClub VIP is for EdgeClub members\n/)

    // A connected member without access, with someone else's link, is turned away too.
    const lapsed = await register(h.t.app)
    const { user: lapsedUser } = await connectTelegram(h, lapsed, {
      first_name: 'Lapsed',
      username: 'lapsed_lou',
    })
    h.emulator.telegram.joinByLink(lapsedUser.id, link)
    await settled(h)
    expect(h.emulator.telegram.member(vipChat(), lapsedUser.id).status).toBe('left')

    h.emulator.telegram.joinByLink(user.id, link)
    await settled(h)
    expect(h.emulator.telegram.member(vipChat(), user.id).status).toBe('member')
    const status = await telegramStatus(h, member)
    expect(status.chats.find((chat: { title: string }) => chat.title === 'EdgeClub VIP')).toMatchObject({
      member: true,
      inviteLink: null,
    })
  })

  it('access ending removes the member from the chats; paying again lets them back in', async () => {
    const { member, user, link } = await memberInVip('renewing_rae')
    clock.advance(31 * DAY)
    try {
      await h.t.app.services.access.expireEnded()
      await settled(h)
      expect(h.emulator.telegram.member(vipChat(), user.id).status).toBe('left')
      expect(
        h.emulator.telegram.inviteLinks(vipChat()).find((entry) => entry.invite_link === link)?.is_revoked,
      ).toBe(true)
      expect(() => h.emulator.telegram.joinByLink(user.id, link)).toThrow()
    } finally {
      clock.reset()
    }
    expect((await telegramStatus(h, member)).chats).toEqual([])
    await grant(member.user.id)
    await settled(h)
    const fresh = await linkTo(member, 'EdgeClub VIP')
    expect(fresh).not.toBe(link)
    expect(botButtons(h, user.id).at(-2)?.url).toBe(fresh)
    h.emulator.telegram.joinByLink(user.id, fresh)
    await settled(h)
    expect(h.emulator.telegram.member(vipChat(), user.id).status).toBe('member')
  })

  it('a ban removes at once and holds; unban lets the member back; kick removes', async () => {
    const { member, user } = await memberInVip('banned_ben')
    const moderate = (action: string) =>
      as(h.t.app, h.admin.accessToken, {
        method: 'POST',
        url: `${API}/admin/users/${action}`,
        payload: { userId: member.user.id, reason: 'test' },
      })
    const banned = await moderate('ban')
    expect(banned.json().data).toEqual({ state: 'banned', telegram: 'banned' })
    expect(h.emulator.telegram.member(vipChat(), user.id).status).toBe('kicked')
    const refused = await as(h.t.app, member.accessToken, { method: 'POST', url: `${API}/telegram/connect` })
    expect(refused.statusCode).toBe(403)
    expect((await telegramStatus(h, member)).banned).toBe(true)

    expect((await moderate('unban')).json().data).toEqual({ state: 'removed', telegram: 'removed' })
    expect(h.emulator.telegram.member(vipChat(), user.id).status).toBe('left')
    const link = await linkTo(member, 'EdgeClub VIP')
    h.emulator.telegram.joinByLink(user.id, link)
    await settled(h)
    expect(h.emulator.telegram.member(vipChat(), user.id).status).toBe('member')

    expect((await moderate('kick')).json().data).toEqual({ state: 'kicked', telegram: 'kicked' })
    expect(h.emulator.telegram.member(vipChat(), user.id).status).toBe('left')
    const audit = (
      await as(h.t.app, h.admin.accessToken, {
        method: 'GET',
        url: `${API}/admin/audit?targetId=${member.user.id}`,
      })
    ).json().data
    expect(audit.items.map((entry: { action: string }) => entry.action).slice(0, 3)).toEqual([
      'discord.kick',
      'discord.unban',
      'discord.ban',
    ])
  })

  it('a plan change moves its members between chats within the minute', async () => {
    const created = await as(h.t.app, h.admin.accessToken, {
      method: 'POST',
      url: `${API}/admin/plans`,
      payload: {
        name: 'VIP Room',
        slug: `vip-room-${Date.now()}`,
        price: 99,
        interval: 'month',
        places: { telegramChats: [vip.id], discordRoles: 'all', signalCategories: 'all' },
      },
    })
    expect(created.statusCode, created.body).toBe(201)
    const plan = created.json().data
    expect(plan.places).toEqual({ telegramChats: [vip.id], discordRoles: 'all', signalCategories: 'all' })
    const member = await register(h.t.app)
    await grant(member.user.id, 30, plan.id)
    const { user } = await connectTelegram(h, member, { first_name: 'Mover', username: 'mover_max' })
    expect((await telegramStatus(h, member)).chats.map((chat: { title: string }) => chat.title)).toEqual([
      'EdgeClub VIP',
    ])
    h.emulator.telegram.joinByLink(user.id, await linkTo(member, 'EdgeClub VIP'))
    await settled(h)
    expect(h.emulator.telegram.member(vipChat(), user.id).status).toBe('member')

    const started = Date.now()
    const moved = await as(h.t.app, h.admin.accessToken, {
      method: 'PUT',
      url: `${API}/admin/plans/${plan.id}`,
      payload: { places: { telegramChats: [nfl.id], discordRoles: 'all', signalCategories: ['NFL'] } },
    })
    expect(moved.statusCode, moved.body).toBe(200)
    await eventually(
      async () => h.emulator.telegram.member(vipChat(), user.id).status,
      (status) => status === 'left',
      60_000,
    )
    const nflLink = await linkTo(member, 'NFL Picks')
    expect(Date.now() - started).toBeLessThan(60_000)
    await settled(h)
    expect((await telegramStatus(h, member)).chats.map((chat: { title: string }) => chat.title)).toEqual([
      'NFL Picks',
    ])
    expect(botButtons(h, user.id).at(-1)).toEqual({ text: 'Join NFL Picks', url: nflLink })
    h.emulator.telegram.joinByLink(user.id, nflLink)
    await settled(h)
    expect(h.emulator.telegram.member(nflChat(), user.id).status).toBe('member')
    // The feed follows the grant too: an NBA pick is shown to this member without its content.
    const pick = await as(h.t.app, h.admin.accessToken, {
      method: 'POST',
      url: `${API}/signals`,
      payload: {
        kind: 'pick',
        sport: 'NBA',
        event: 'Celtics vs Heat',
        startsAt: new Date(Date.now() + 3_600_000).toISOString(),
        market: 'total',
        selection: 'Over 218.5',
        odds: 1.87,
        stake: 1,
      },
    })
    expect(pick.statusCode, pick.body).toBe(201)
    const feed = (
      await as(h.t.app, member.accessToken, { method: 'GET', url: `${API}/signals?limit=5` })
    ).json().data
    expect(feed.items.find((item: { id: string }) => item.id === pick.json().data.id).content).toBeNull()
  })

  it('posts signals and results to the chats whose categories match, with the same words as Discord', async () => {
    const publish = async (sport: string) => {
      const response = await as(h.t.app, h.admin.accessToken, {
        method: 'POST',
        url: `${API}/signals`,
        payload: {
          kind: 'pick',
          sport,
          event: `${sport} game`,
          startsAt: new Date(Date.now() + 3_600_000).toISOString(),
          market: 'moneyline',
          selection: `${sport} home`,
          odds: 2.1,
          stake: 1,
          analysis: 'Home form.',
        },
      })
      expect(response.statusCode, response.body).toBe(201)
      return response.json().data
    }
    const nflPick = await publish('NFL')
    const nbaPick = await publish('NBA')
    await settled(h)
    const texts = (chatId: number) =>
      h.emulator.telegram.messages(chatId).map((message) => ('text' in message ? message.text : ''))
    /** Each message ends with its witness: the commitment and the signed head its entry made. */
    const witness = async (signal: { id: string; commitment: string }, type: LedgerEntry['type']) => {
      const ledger = await h.t.app.inject({ method: 'GET', url: `${API}/record/ledger?limit=1000` })
      const entries = ledger.json().data.entries as LedgerEntry[]
      const seq = entries.find((entry) => entry.signalId === signal.id && entry.type === type)!.seq
      const head = (await h.t.app.inject({ method: 'GET', url: `${API}/record/head?size=${seq}` })).json()
        .data
      return witnessText(signal.commitment, head, 'chat')
    }
    const expected = async (
      signal: Parameters<typeof signalAnnouncement>[1] & { id: string; commitment: string },
    ) => {
      const { headline, details, analysis } = signalAnnouncement('publish', signal, 'discord')
      return [headline, details, analysis ? `\n${analysis}` : '', `\n${await witness(signal, 'publish')}`]
        .filter(Boolean)
        .join('\n')
    }
    const nflText = await expected(nflPick)
    const nbaText = await expected(nbaPick)
    expect(texts(nflChat())).toContain(nflText)
    expect(texts(nflChat())).not.toContain(nbaText)
    expect(texts(vipChat())).toEqual(expect.arrayContaining([nflText, nbaText]))
    // A result goes where its publication went.
    const voided = await as(h.t.app, h.admin.accessToken, {
      method: 'POST',
      url: `${API}/signals/${nflPick.id}/void`,
      payload: { reason: 'Game postponed' },
    })
    expect(voided.statusCode, voided.body).toBe(200)
    await settled(h)
    const result = `${signalAnnouncement('void', voided.json().data, 'discord').headline}\n\n${await witness(nflPick, 'void')}`
    expect(texts(nflChat()).at(-1)).toBe(result)
    expect(texts(vipChat()).at(-1)).toBe(result)
    const vipMessage = h.emulator.telegram
      .messages(vipChat())
      .find((message) => 'text' in message && message.text === nflText)
    expect(vipMessage && 'entities' in vipMessage ? vipMessage.entities?.[0] : undefined).toMatchObject({
      type: 'bold',
      offset: 0,
    })
  })

  it('renewal reminders go by bot message to members who opt in, beside the email', async () => {
    const optedIn = await memberInVip('reminded_rita')
    const silent = await memberInVip('quiet_quinn')
    const saved = await as(h.t.app, optedIn.member.accessToken, {
      method: 'PUT',
      url: `${API}/telegram/settings`,
      payload: { reminders: true },
    })
    expect(saved.json().data.reminders).toBe(true)
    // Crypto-paid periods that end in two days (crypto does not renew by itself): their reminders.
    const plan = (await h.t.app.services.plans.grantable())!
    for (const { member } of [optedIn, silent])
      await h.t.database.db.transaction().execute(async (trx) => {
        const payment = await trx
          .insertInto('payments')
          .values({
            user_id: member.user.id,
            plan_id: plan.id,
            kind: 'subscription',
            provider: 'crypto',
            status: 'completed',
            amount_minor: 3999,
            currency: 'USD',
          })
          .returning('id')
          .executeTakeFirstOrThrow()
        await h.t.app.services.access.grantPeriod(trx, {
          userId: member.user.id,
          plan,
          provider: 'crypto',
          paymentId: payment.id,
          start: clock.now(),
          endFrom: () => new Date(clock.now().valueOf() + 2 * DAY),
        })
      })
    const before = botSaid(h, silent.user.id).length
    expect(await h.t.app.services.access.remindCryptoRenewals()).toBeGreaterThanOrEqual(2)
    await settled(h)
    expect(botSaid(h, optedIn.user.id).at(-1)).toMatch(
      new RegExp(
        `^Your EdgeClub plan ends soon\\n${plan.name} ends on [A-Z][a-z]{2} \\d{1,2}, \\d{4}\\. Renew`,
      ),
    )
    expect(botSaid(h, silent.user.id)).toHaveLength(before)
  })

  it('/status, /links and /stop', async () => {
    const { member, user } = await memberInVip('commands_cal')
    h.emulator.telegram.sendMessage(user.id, '/status')
    await settled(h)
    expect(botSaid(h, user.id).at(-1)).toMatch(
      /^Your EdgeClub membership\nPlan: Monthly, ends on .+\n\nChats:\n✓ EdgeClub VIP\n· NFL Picks$/,
    )
    h.emulator.telegram.sendMessage(user.id, '/links')
    await settled(h)
    expect(botButtons(h, user.id).at(-1)?.text).toBe('Join NFL Picks')
    h.emulator.telegram.sendMessage(user.id, '/stop')
    await settled(h)
    expect(botSaid(h, user.id).at(-1)).toMatch(/^Disconnected\n/)
    expect((await telegramStatus(h, member)).connected).toBe(false)
    expect(h.emulator.telegram.member(vipChat(), user.id).status).toBe('left')
  })

  it('runs without Discord: no invite, but a broadcast reaches Telegram and the admin console shows the account', async () => {
    const { member } = await memberInVip('console_cleo')
    const invite = await as(h.t.app, member.accessToken, {
      method: 'POST',
      url: `${API}/discord/create-invite`,
    })
    expect(invite.statusCode).toBe(503)
    const detail = (
      await as(h.t.app, h.admin.accessToken, { method: 'GET', url: `${API}/admin/users/${member.user.id}` })
    ).json().data
    expect(detail.telegram).toMatchObject({
      account: { username: 'console_cleo' },
      banned: false,
      chats: [
        { title: 'EdgeClub VIP', granted: true, state: 'member' },
        { title: 'NFL Picks', granted: true, state: 'link-sent' },
      ],
    })
    expect(detail.user.telegram).toEqual({ connected: true, username: '@console_cleo' })
    expect(detail.places).toEqual({
      discordRoles: [],
      telegramChats: ['EdgeClub VIP', 'NFL Picks'],
      signalCategories: 'all',
    })
    const refused = await as(h.t.app, h.admin.accessToken, {
      method: 'POST',
      url: `${API}/admin/broadcast`,
      payload: { message: 'Discord only' },
    })
    expect(refused.statusCode).toBe(503)
    const sent = await as(h.t.app, h.admin.accessToken, {
      method: 'POST',
      url: `${API}/admin/broadcast`,
      payload: { title: 'Tonight', message: 'Big card tonight.', alsoTelegram: true },
    })
    expect(sent.statusCode, sent.body).toBe(200)
    expect(sent.json().data).toMatchObject({ messageId: null, emailed: 0, telegram: expect.any(Number) })
    await settled(h)
    const user = (await telegramStatus(h, member)).username
    expect(user).toBe('@console_cleo')
  })
})
