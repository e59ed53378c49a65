import type { IncomingMessage, ServerResponse } from 'node:http'
import type { InlineKeyboardMarkup, Message, User } from '@grammyjs/types'
import type { Handler, RequestContext, Router } from '../http'
import { sendText } from '../http'
import { isActiveMember, type StoredChat, type TelegramStore } from './state'
import type { TelegramControl } from './telegram'

/**
 * What people see of the emulated Telegram, for the demo and end-to-end tests: plain server-rendered
 * pages with forms. `/telegram/` lists people and chats; `/telegram/t.me/<bot>?start=<payload>` is
 * where a deep link lands (Start sends `/start <payload>` to the bot); `/telegram/+<hash>` (also
 * `/telegram/t.me/+<hash>`) is an invite link, where someone joins or asks to join and then sees
 * the bot's answer; `/telegram/users/<id>` is a person's chat with the bot and
 * `/telegram/chats/<id>` a group's or channel's messages. The acting person is chosen on each form
 * and remembered in a cookie for this browser.
 */

const COOKIE = 'telegram_emulator_user'

const escapeHtml = (value: string) =>
  value
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;')

const STYLE = `body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",sans-serif;background:#e6ebee;color:#0f1419}
main{max-width:44rem;margin:1.5rem auto;padding:1.25rem 1.5rem;background:#fff;border-radius:10px}
h1{font-size:1.35rem}h2{font-size:1.05rem;margin-top:1.5rem}a{color:#2481cc}
form{margin:.75rem 0}label{display:block;font-size:.85rem;margin:.5rem 0 .2rem}
input,select,button{font:inherit;padding:.4rem .6rem;border-radius:6px;border:1px solid #c4cdd5}
button{cursor:pointer;background:#2481cc;border-color:#2481cc;color:#fff}button.secondary{background:#fff;color:#2481cc}
.error{color:#c0392b}.notice{background:#eef6fc;padding:.6rem .8rem;border-radius:6px}
ol.messages{list-style:none;padding:0}ol.messages li{margin:.5rem 0;padding:.5rem .75rem;border-radius:8px;background:#f1f4f7;white-space:pre-wrap}
ol.messages li.mine{background:#dcf4c4}.meta{display:block;font-size:.75rem;color:#6b7a87;white-space:normal}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.3rem .4rem;border-bottom:1px solid #e6ebee;font-size:.9rem}
code{word-break:break-all}`

function page(title: string, body: string, refreshSeconds?: number): string {
  const refresh = refreshSeconds ? `<meta http-equiv="refresh" content="${refreshSeconds}">` : ''
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">${refresh}<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><main><p><a href="/telegram/">Telegram (EdgeClub emulator)</a></p>${body}</main></body></html>`
}

function sendHtml(res: ServerResponse, status: number, html: string, headers: Record<string, string> = {}) {
  sendText(res, status, html, 'text/html; charset=utf-8', { 'cache-control': 'no-store', ...headers })
}

function redirect(res: ServerResponse, location: string, headers: Record<string, string> = {}) {
  res.writeHead(303, { location, 'content-length': '0', ...headers })
  res.end()
}

function cookieUser(req: IncomingMessage): number | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, value] = part.trim().split('=')
    if (key === COOKIE && value && /^\d+$/.test(value)) return Number(value)
  }
  return undefined
}

const rememberUser = (userId: number) => ({
  'set-cookie': `${COOKIE}=${userId}; Path=/telegram; HttpOnly; SameSite=Lax`,
})

const displayName = (user: User) =>
  `${user.first_name}${user.last_name ? ` ${user.last_name}` : ''}${user.username ? ` (@${user.username})` : ''}`

const time = (date: number) => new Date(date * 1000).toISOString().replace('T', ' ').slice(0, 19)

/** A person picker: an existing account, or a new one when its first name is filled in. */
function accountFields(store: TelegramStore, selected: number | undefined, idPrefix: string): string {
  const options = [...store.users.values()]
    .map(
      ({ user }) =>
        `<option value="${user.id}"${user.id === selected ? ' selected' : ''}>${escapeHtml(displayName(user))}</option>`,
    )
    .join('')
  return `<fieldset><legend>Telegram account</legend>
<label for="${idPrefix}-user">Existing account</label><select id="${idPrefix}-user" name="user_id">${options}</select>
<label for="${idPrefix}-first-name">Or a new account: first name</label><input id="${idPrefix}-first-name" name="first_name" autocomplete="off">
<label for="${idPrefix}-username">New account's username (optional)</label><input id="${idPrefix}-username" name="username" autocomplete="off" spellcheck="false">
</fieldset>`
}

/** The person a form acts as: a new account when a first name was given, else the chosen one. */
function formUser(store: TelegramStore, form: URLSearchParams): number {
  const firstName = form.get('first_name')?.trim() ?? ''
  if (firstName !== '') {
    const username = form.get('username')?.trim() ?? ''
    return store.createUser({ first_name: firstName, ...(username ? { username } : {}) }).id
  }
  const chosen = Number(form.get('user_id'))
  if (!store.users.has(chosen)) throw new Error('Choose a Telegram account or enter a new one.')
  return chosen
}

function keyboard(markup: InlineKeyboardMarkup | undefined): string {
  if (!markup) return ''
  const buttons = markup.inline_keyboard
    .flat()
    .map((button) =>
      'url' in button && /^https?:\/\//i.test(button.url)
        ? `<a href="${escapeHtml(button.url)}">${escapeHtml(button.text)}</a>`
        : `<button type="button" disabled title="Button presses are not emulated">${escapeHtml(button.text)}</button>`,
    )
  return buttons.length > 0 ? `<span class="meta">${buttons.join(' ')}</span>` : ''
}

function messageList(messages: Message[], mineId?: number): string {
  if (messages.length === 0) return '<p>No messages yet.</p>'
  const items = messages
    .map((message) => {
      const author =
        message.from?.id === mineId
          ? 'You'
          : message.from
            ? displayName(message.from)
            : (message.sender_chat?.title ?? 'Channel')
      const text = 'text' in message && typeof message.text === 'string' ? message.text : ''
      const markup = 'reply_markup' in message ? message.reply_markup : undefined
      return `<li${message.from?.id === mineId ? ' class="mine"' : ''}><span class="meta">${escapeHtml(author)} · ${time(message.date)}</span>${escapeHtml(text)}${keyboard(markup)}</li>`
    })
    .join('')
  return `<ol class="messages" aria-label="Messages">${items}</ol>`
}

export function mountTelegramPages(
  router: Router,
  store: TelegramStore,
  control: TelegramControl,
  fallback: Handler,
): void {
  const botName = () => store.bot.first_name
  const errorText = (error: unknown) =>
    (error instanceof Error ? error.message : String(error)).replace(/^telegram emulator: /, '')
  const form = (ctx: RequestContext) => new URLSearchParams(ctx.rawBody.toString('utf8'))

  // ---- index --------------------------------------------------------------------------------------------

  router.on('GET', '/telegram', ({ req, res }) => {
    const info = control.webhookInfo()
    const people = [...store.users.values()]
      .map(
        ({ user, started, blocked }) =>
          `<tr><td><a href="/telegram/users/${user.id}">${escapeHtml(displayName(user))}</a></td><td>${user.id}</td><td>${blocked ? 'blocked the bot' : started ? 'started the bot' : 'has not started the bot'}</td></tr>`,
      )
      .join('')
    const chats = [...store.chats.values()]
      .map((chat) => {
        const links = [...store.links.values()]
          .filter((link) => link.chatId === chat.id)
          .map((link) => {
            const state =
              store.linkProblem(link) ?? (link.createsJoinRequest ? 'needs approval' : 'joins at once')
            return `<li><a href="/telegram/+${link.hash}">${escapeHtml(store.linkUrl(link.hash))}</a> ${link.isPrimary ? '(primary) ' : ''}${escapeHtml(link.name)} — ${escapeHtml(state)}</li>`
          })
          .join('')
        return `<li><a href="/telegram/chats/${chat.id}">${escapeHtml(chat.title)}</a> (${chat.type}, ${store.memberCount(chat)} members, id <code>${chat.id}</code>)<ul>${links}</ul></li>`
      })
      .join('')
    const current = cookieUser(req)
    sendHtml(
      res,
      200,
      page(
        'Telegram (emulated)',
        `<h1>Telegram (emulated)</h1>
<p>The bot <strong>${escapeHtml(botName())}</strong> (@${escapeHtml(store.bot.username)}). Webhook: ${info.url ? `<code>${escapeHtml(info.url)}</code>` : 'not set'}; ${info.pending_update_count} updates pending${info.last_error_message ? `; last error: ${escapeHtml(info.last_error_message)}` : ''}.</p>
<p>Open the bot: <a href="/telegram/t.me/${escapeHtml(store.bot.username)}">t.me/${escapeHtml(store.bot.username)}</a></p>
<h2>People</h2><table><thead><tr><th scope="col">Name</th><th scope="col">User id</th><th scope="col">Bot</th></tr></thead><tbody>${people}</tbody></table>
<form method="post" action="/telegram/users"><h2>New Telegram account</h2>
<label for="new-first-name">First name</label><input id="new-first-name" name="first_name" required autocomplete="off">
<label for="new-username">Username (optional)</label><input id="new-username" name="username" autocomplete="off" spellcheck="false">
<p><button type="submit">Create account</button></p></form>
<h2>Chats</h2><ul>${chats}</ul>
${current && store.users.has(current) ? `<p>This browser acts as ${escapeHtml(displayName(store.person(current).user))}.</p>` : ''}`,
      ),
    )
  })

  router.on('POST', '/telegram/users', (ctx) => {
    const values = form(ctx)
    try {
      const user = store.createUser({
        first_name: values.get('first_name')?.trim() ?? '',
        ...(values.get('username')?.trim() ? { username: values.get('username')?.trim() } : {}),
      })
      redirect(ctx.res, `/telegram/users/${user.id}`, rememberUser(user.id))
    } catch (error) {
      sendHtml(
        ctx.res,
        400,
        page(
          'Cannot create the account',
          `<h1>Cannot create the account</h1><p class="error" role="alert">${escapeHtml(errorText(error))}</p>`,
        ),
      )
    }
  })

  // ---- a person's chat with the bot -------------------------------------------------------------------------

  const privateChatPage = (res: ServerResponse, userId: number, notice?: string, status = 200) => {
    const person = store.users.get(userId)
    if (!person) return sendHtml(res, 404, page('No such account', '<h1>No such Telegram account</h1>'))
    const last = person.messages.at(-1)
    // Wait for the bot's answer: refresh while the person's own message is the newest and recent.
    const waiting = last?.from?.id === userId && store.unixNow() - last.date < 15
    const chats = [...store.chats.values()]
      .filter((chat) => isActiveMember(store.memberOf(chat, userId)))
      .map(
        (chat) =>
          `<li><a href="/telegram/chats/${chat.id}?user=${userId}">${escapeHtml(chat.title)}</a></li>`,
      )
      .join('')
    const base = `/telegram/users/${userId}`
    const actions = person.blocked
      ? `<form method="post" action="${base}/start"><button type="submit">Restart bot</button></form>`
      : person.started
        ? `<form method="post" action="${base}/messages"><label for="message-text">Write a message</label><input id="message-text" name="text" required autocomplete="off"> <button type="submit">Send</button></form>
<form method="post" action="${base}/block"><button type="submit" class="secondary">Block bot</button></form>`
        : `<form method="post" action="${base}/start"><button type="submit">Start</button></form>`
    sendHtml(
      res,
      status,
      page(
        `${botName()} · ${displayName(person.user)}`,
        `<h1>${escapeHtml(botName())} <small>@${escapeHtml(store.bot.username)}</small></h1>
<p>Chat as <strong>${escapeHtml(displayName(person.user))}</strong> (user id ${userId}). <a href="${base}">Refresh</a></p>
${notice ? `<p class="error" role="alert">${escapeHtml(notice)}</p>` : ''}
${messageList(person.messages, userId)}
${actions}
<h2>Chats you are in</h2>${chats ? `<ul>${chats}</ul>` : '<p>None yet.</p>'}`,
        waiting ? 1 : undefined,
      ),
      rememberUser(userId),
    )
  }

  router.on('GET', '/telegram/users/:userId', ({ res, params }) =>
    privateChatPage(res, Number(params.userId)),
  )

  const personAction =
    (action: (userId: number, values: URLSearchParams) => void) =>
    (ctx: RequestContext): void => {
      const userId = Number(ctx.params.userId)
      try {
        action(userId, form(ctx))
        redirect(ctx.res, `/telegram/users/${userId}`, rememberUser(userId))
      } catch (error) {
        privateChatPage(ctx.res, userId, errorText(error), 400)
      }
    }
  router.on(
    'POST',
    '/telegram/users/:userId/messages',
    personAction((userId, values) => control.sendMessage(userId, values.get('text') ?? '')),
  )
  router.on(
    'POST',
    '/telegram/users/:userId/start',
    personAction((userId) => control.start(userId)),
  )
  router.on(
    'POST',
    '/telegram/users/:userId/block',
    personAction((userId) => control.blockBot(userId)),
  )

  // ---- a group's or channel's messages ----------------------------------------------------------------------

  router.on('GET', '/telegram/chats/:chatId', ({ res, params, url }) => {
    const chat = store.chats.get(Number(params.chatId))
    if (!chat) return sendHtml(res, 404, page('No such chat', '<h1>No such chat</h1>'))
    const asUser = url.searchParams.has('user') ? Number(url.searchParams.get('user')) : undefined
    const viewer = asUser !== undefined && store.users.has(asUser) ? store.person(asUser).user : undefined
    const inside = viewer ? isActiveMember(store.memberOf(chat, viewer.id)) : true
    const members = store
      .members(chat)
      .map((member) => `<li>${escapeHtml(displayName(member.user))} — ${member.status}</li>`)
      .join('')
    const requests = [...chat.joinRequests.values()]
      .map(
        (request) =>
          `<li>${escapeHtml(displayName(store.person(request.userId).user))} since ${time(request.date)}</li>`,
      )
      .join('')
    sendHtml(
      res,
      200,
      page(
        chat.title,
        `<h1>${escapeHtml(chat.title)}</h1>
<p>${chat.type === 'channel' ? 'Channel' : 'Group'} · ${store.memberCount(chat)} members${viewer ? ` · viewing as ${escapeHtml(displayName(viewer))}` : ''}. <a href="/telegram/chats/${chat.id}${viewer ? `?user=${viewer.id}` : ''}">Refresh</a></p>
${inside ? messageList(chat.messages) : `<p class="notice" role="status">You are not a member of ${escapeHtml(chat.title)}, so you cannot see its messages.</p>`}
${viewer && inside && store.memberOf(chat, viewer.id)?.status !== 'creator' ? `<form method="post" action="/telegram/chats/${chat.id}/leave"><input type="hidden" name="user_id" value="${viewer.id}"><button type="submit" class="secondary">Leave ${escapeHtml(chat.title)}</button></form>` : ''}
<h2>Members</h2><ul>${members}</ul>
<h2>Join requests</h2>${requests ? `<ul>${requests}</ul>` : '<p>None.</p>'}`,
        inside ? 2 : undefined,
      ),
    )
  })

  router.on('POST', '/telegram/chats/:chatId/leave', (ctx) => {
    const chatId = Number(ctx.params.chatId)
    const userId = Number(form(ctx).get('user_id'))
    try {
      control.leaveChat(userId, chatId)
      redirect(ctx.res, `/telegram/chats/${chatId}?user=${userId}`)
    } catch (error) {
      sendHtml(
        ctx.res,
        400,
        page(
          'Cannot leave',
          `<h1>Cannot leave</h1><p class="error" role="alert">${escapeHtml(errorText(error))}</p>`,
        ),
      )
    }
  })

  // ---- deep links and invite links ----------------------------------------------------------------------

  const startPage = (req: IncomingMessage, res: ServerResponse, payload: string, notice?: string) => {
    const hidden = payload ? `<input type="hidden" name="start" value="${escapeHtml(payload)}">` : ''
    sendHtml(
      res,
      notice ? 400 : 200,
      page(
        `${botName()} · Telegram`,
        `<h1>${escapeHtml(botName())}</h1><p>@${escapeHtml(store.bot.username)} · bot</p>
${notice ? `<p class="error" role="alert">${escapeHtml(notice)}</p>` : ''}
<form method="post" action="/telegram/t.me/${escapeHtml(store.bot.username)}">${hidden}
${accountFields(store, cookieUser(req), 'start')}
<p><button type="submit">Start</button></p></form>`,
      ),
    )
  }

  interface InviteState {
    text: string
    /** Where the person goes next (their chat, once they are in). */
    link?: { href: string; label: string }
    pending: boolean
  }

  const inviteState = (chat: StoredChat, userId: number): InviteState | undefined => {
    const membership = store.memberOf(chat, userId)
    const name = displayName(store.person(userId).user)
    if (isActiveMember(membership))
      return {
        text: `${name} is a member of ${chat.title}.`,
        link: { href: `/telegram/chats/${chat.id}?user=${userId}`, label: `Open ${chat.title}` },
        pending: false,
      }
    if (membership?.status === 'kicked')
      return { text: `${name} was banned from ${chat.title}.`, pending: false }
    if (chat.joinRequests.has(userId))
      return { text: `${name}'s request to join ${chat.title} is waiting for approval.`, pending: true }
    if (chat.decisions.get(userId)?.decision === 'declined')
      return { text: `${name}'s request to join ${chat.title} was declined.`, pending: false }
    return undefined
  }

  const invitePage = (req: IncomingMessage, res: ServerResponse, url: URL, hash: string, notice?: string) => {
    const link = store.links.get(hash)
    const chat = link ? store.chats.get(link.chatId) : undefined
    if (!link || !chat)
      return sendHtml(
        res,
        404,
        page('Invalid invite link', '<h1>This invite link is invalid</h1><p>It may have been mistyped.</p>'),
      )
    const shown = url.searchParams.has('user') ? Number(url.searchParams.get('user')) : cookieUser(req)
    const state = shown !== undefined && store.users.has(shown) ? inviteState(chat, shown) : undefined
    const problem = store.linkProblem(link)
    const action = link.createsJoinRequest
      ? 'Request to Join'
      : chat.type === 'channel'
        ? 'Join Channel'
        : 'Join Group'
    sendHtml(
      res,
      notice ? 400 : 200,
      page(
        `${chat.title} · Telegram`,
        `<h1>${escapeHtml(chat.title)}</h1>
<p>${chat.type === 'channel' ? 'Channel' : 'Group'} · ${store.memberCount(chat)} members${link.createsJoinRequest ? ' · an administrator approves new members' : ''}</p>
${notice ? `<p class="error" role="alert">${escapeHtml(notice)}</p>` : ''}
${state ? `<p class="notice" role="status">${escapeHtml(state.text)}${state.link ? ` <a href="${state.link.href}">${escapeHtml(state.link.label)}</a>` : ''}</p>` : ''}
${
  problem
    ? `<p class="error" role="alert">${escapeHtml(problem)}</p>`
    : `<form method="post" action="/telegram/+${escapeHtml(hash)}">
${accountFields(store, shown, 'join')}
<p><button type="submit">${action}</button></p></form>`
}`,
        state?.pending ? 1 : undefined,
      ),
    )
  }

  const joinFromForm = (ctx: RequestContext, hash: string) => {
    let userId: number | undefined
    try {
      userId = formUser(store, form(ctx))
      control.joinByLink(userId, `+${hash}`)
      redirect(ctx.res, `/telegram/+${hash}?user=${userId}`, rememberUser(userId))
    } catch (error) {
      invitePage(ctx.req, ctx.res, ctx.url, hash, errorText(error))
    }
  }

  const tme = (ctx: RequestContext) => {
    const name = ctx.params.name ?? ''
    if (name.startsWith('+')) {
      return ctx.req.method === 'POST'
        ? joinFromForm(ctx, name.slice(1))
        : invitePage(ctx.req, ctx.res, ctx.url, name.slice(1))
    }
    if (name.toLowerCase() !== store.bot.username.toLowerCase())
      return sendHtml(ctx.res, 404, page('Not found', `<h1>No bot or chat called @${escapeHtml(name)}</h1>`))
    if (ctx.req.method !== 'POST') return startPage(ctx.req, ctx.res, ctx.url.searchParams.get('start') ?? '')
    const values = form(ctx)
    const payload = values.get('start') ?? ''
    try {
      const userId = formUser(store, values)
      control.start(userId, payload || undefined)
      redirect(ctx.res, `/telegram/users/${userId}`, rememberUser(userId))
    } catch (error) {
      startPage(ctx.req, ctx.res, payload, errorText(error))
    }
  }
  router.on('GET', '/telegram/t.me/:name', tme)
  router.on('POST', '/telegram/t.me/:name', tme)

  const plusLink = (ctx: RequestContext) => {
    const segment = ctx.params.segment ?? ''
    if (!segment.startsWith('+')) return fallback(ctx)
    const hash = segment.slice(1)
    return ctx.req.method === 'POST' ? joinFromForm(ctx, hash) : invitePage(ctx.req, ctx.res, ctx.url, hash)
  }
  router.on('GET', '/telegram/:segment', plusLink)
  router.on('POST', '/telegram/:segment', plusLink)
}
