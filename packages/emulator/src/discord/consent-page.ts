import type { IncomingMessage, ServerResponse } from 'node:http'
import type { APIUser } from 'discord-api-types/v10'
import { type Router, sendText } from '../http'
import { type AuthorizeParams, type OAuth2, withQuery } from './oauth2'
import type { DiscordStore } from './state'

/**
 * Discord's OAuth2 consent screen at /discord/oauth2/authorize (Discord's is at
 * discord.com/oauth2/authorize): who is signed in, what the application asks for in plain words,
 * and Authorize / Cancel. The tester can switch to another emulated Discord user or create one; the
 * choice is kept in a cookie for this browser until a test picks the signed-in user by control route.
 */

const BASE = '/discord/oauth2/authorize'
const COOKIE = 'discord_emulator_user'

/** What each scope lets the application do, worded as Discord's consent screen words it. */
const SCOPE_WORDS: Record<string, string> = {
  identify: 'Access your username, avatar, and banner',
  email: 'Access your email address',
  'guilds.join': 'Join servers for you',
  guilds: "Know what servers you're in",
  'guilds.members.read': 'Read your member info (nickname, avatar, roles) for servers you belong to',
  connections: 'Access your third-party connections',
}

const escapeHtml = (value: string) =>
  value
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;')

const STYLE = `body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",sans-serif;background:#313338;color:#f2f3f5}
main{max-width:28rem;margin:2rem auto;padding:1.5rem;background:#2b2d31;border-radius:8px}
h1{font-size:1.25rem}h2{font-size:.8rem;text-transform:uppercase;color:#b5bac1}
form{margin:.75rem 0}label{display:block;font-size:.85rem;margin-bottom:.25rem}
input,select,button{font:inherit;padding:.45rem .6rem;border-radius:4px;border:1px solid #4e5058}
button{cursor:pointer;background:#4e5058;color:#fff}button[value=authorize]{background:#5865f2;border-color:#5865f2}
.error{color:#fa777c}code{word-break:break-all}`

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`
}

function sendHtml(res: ServerResponse, status: number, html: string, headers: Record<string, string> = {}) {
  sendText(res, status, html, 'text/html; charset=utf-8', { 'cache-control': 'no-store', ...headers })
}

function redirect(
  res: ServerResponse,
  status: 302 | 303,
  location: string,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { location, 'content-length': '0', ...headers })
  res.end()
}

function paramsOf(values: URLSearchParams): AuthorizeParams {
  return {
    responseType: values.get('response_type'),
    clientId: values.get('client_id'),
    scope: values.get('scope'),
    state: values.get('state'),
    redirectUri: values.get('redirect_uri'),
    prompt: values.get('prompt'),
    codeChallenge: values.get('code_challenge'),
    codeChallengeMethod: values.get('code_challenge_method'),
  }
}

function cookieValue(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=')
    if (key === name) return rest.join('=')
  }
  return undefined
}

const displayName = (account: APIUser) => account.global_name ?? account.username

export function mountDiscordConsentPage(router: Router, store: DiscordStore, oauth: OAuth2): void {
  const signedInUser = (req: IncomingMessage): APIUser => {
    const [userId, generation] = (cookieValue(req, COOKIE) ?? '').split('.')
    const chosen = userId ? store.users.get(userId) : undefined
    if (chosen && !chosen.bot && generation === String(oauth.sessionGeneration)) return chosen
    const fallback = store.users.get(oauth.signedInUserId) ?? store.people()[0]
    if (!fallback) throw new Error('discord emulator: no Discord user to sign in')
    return fallback
  }

  const errorPage = (res: ServerResponse, message: string) =>
    sendHtml(
      res,
      400,
      page(
        message,
        `<h1>${escapeHtml(message)}</h1><p>Discord cannot continue this authorization request (EdgeClub's Discord emulator).</p>`,
      ),
    )

  const consentPage = (
    res: ServerResponse,
    account: APIUser,
    query: URLSearchParams,
    consent: { scopes: string[]; redirectUri: string },
    notice?: string,
  ) => {
    const app = escapeHtml(store.config.applicationName)
    const returnTo = escapeHtml(`${BASE}?${query.toString()}`)
    const hidden = [...query.entries()]
      .map(([key, value]) => `<input type="hidden" name="${escapeHtml(key)}" value="${escapeHtml(value)}">`)
      .join('')
    const options = store
      .people()
      .map(
        (person) =>
          `<option value="${person.id}"${person.id === account.id ? ' selected' : ''}>${escapeHtml(displayName(person))} (@${escapeHtml(person.username)})</option>`,
      )
      .join('')
    const scopes = consent.scopes
      .map((scope) => `<li>${escapeHtml(SCOPE_WORDS[scope] ?? `Use the ${scope} scope`)}</li>`)
      .join('')
    sendHtml(
      res,
      notice ? 400 : 200,
      page(
        `Authorize ${store.config.applicationName} · Discord`,
        `<p>Discord · EdgeClub emulator</p>
<h1>${app} wants to access your Discord account</h1>
${notice ? `<p class="error" role="alert">${escapeHtml(notice)}</p>` : ''}
<section aria-labelledby="account-heading"><h2 id="account-heading">Signed in as</h2>
<p><strong>${escapeHtml(displayName(account))}</strong> (@${escapeHtml(account.username)})</p>
<form method="post" action="${BASE}/account"><input type="hidden" name="return_to" value="${returnTo}"><input type="hidden" name="action" value="switch">
<label for="switch-account">Switch account</label><select id="switch-account" name="user_id">${options}</select> <button type="submit">Switch</button></form>
<form method="post" action="${BASE}/account"><input type="hidden" name="return_to" value="${returnTo}"><input type="hidden" name="action" value="create">
<label for="new-username">New Discord username</label><input id="new-username" name="username" required autocomplete="off" spellcheck="false"> <button type="submit">Create user</button></form>
</section>
<section aria-labelledby="scopes-heading"><h2 id="scopes-heading">This will allow the developer of ${app} to:</h2><ul>${scopes}</ul></section>
<form method="post" action="${BASE}">${hidden}
<p>Once you authorize, you will be redirected outside of Discord to <code>${escapeHtml(consent.redirectUri)}</code>.</p>
<button type="submit" name="decision" value="cancel">Cancel</button> <button type="submit" name="decision" value="authorize">Authorize</button></form>`,
      ),
    )
  }

  router.on('GET', BASE, ({ req, res, url }) => {
    const check = oauth.checkAuthorize(paramsOf(url.searchParams))
    if (check.kind === 'page') return errorPage(res, check.message)
    if (check.kind === 'redirect') return redirect(res, 302, check.location)
    const account = signedInUser(req)
    if (url.searchParams.get('prompt') === 'none' && oauth.alreadyGranted(account.id, check.scopes)) {
      const code = oauth.issueCode(account.id, check.scopes, check.redirectUri, check.codeChallenge)
      return redirect(res, 302, withQuery(check.redirectUri, { code, state: check.state }))
    }
    consentPage(res, account, url.searchParams, check)
  })

  router.on('POST', BASE, ({ req, res, rawBody }) => {
    const form = new URLSearchParams(rawBody.toString('utf8'))
    const check = oauth.checkAuthorize(paramsOf(form))
    if (check.kind === 'page') return errorPage(res, check.message)
    if (check.kind === 'redirect') return redirect(res, 302, check.location)
    const decision = form.get('decision')
    if (decision === 'cancel') {
      return redirect(
        res,
        302,
        withQuery(check.redirectUri, {
          error: 'access_denied',
          error_description: 'The resource owner or authorization server denied the request',
          state: check.state,
        }),
      )
    }
    if (decision !== 'authorize') return errorPage(res, 'Choose Authorize or Cancel')
    const code = oauth.issueCode(signedInUser(req).id, check.scopes, check.redirectUri, check.codeChallenge)
    redirect(res, 302, withQuery(check.redirectUri, { code, state: check.state }))
  })

  router.on('POST', `${BASE}/account`, ({ req, res, rawBody }) => {
    const form = new URLSearchParams(rawBody.toString('utf8'))
    const returnTo = form.get('return_to') ?? ''
    // Only back to this consent page: the form must not become an open redirect.
    if (!returnTo.startsWith(`${BASE}?`)) return errorPage(res, 'Invalid return address')
    const query = new URLSearchParams(returnTo.slice(BASE.length + 1))
    let account: APIUser | undefined
    let notice: string | undefined
    if (form.get('action') === 'create') {
      try {
        account = store.upsertUser({ username: form.get('username') ?? '' })
      } catch (error) {
        notice = (error instanceof Error ? error.message : String(error)).replace(/^discord emulator: /, '')
      }
    } else {
      const chosen = store.users.get(form.get('user_id') ?? '')
      if (chosen && !chosen.bot) account = chosen
      else notice = 'That Discord user does not exist.'
    }
    if (!account) {
      const check = oauth.checkAuthorize(paramsOf(query))
      if (check.kind !== 'consent') return redirect(res, 303, returnTo)
      return consentPage(res, signedInUser(req), query, check, notice)
    }
    redirect(res, 303, returnTo, {
      'set-cookie': `${COOKIE}=${account.id}.${oauth.sessionGeneration}; Path=/discord/oauth2; HttpOnly; SameSite=Lax`,
    })
  })
}
