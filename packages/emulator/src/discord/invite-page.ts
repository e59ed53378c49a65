import { type Router, sendText } from '../http'
import type { DiscordControl } from './discord'
import { DiscordError } from './errors'

/**
 * What a person sees when they open an invite link in the demo (DISCORD_INVITE_URL_BASE points
 * here): a small "accept invite" page that joins the emulated guild as the Discord username typed in.
 */
const escapeHtml = (value: string) =>
  value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;')

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head><body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`
}

export function mountDiscordInvitePage(
  router: Router,
  discord: DiscordControl,
  base = '/discord/invite',
): void {
  router.on('GET', `${base}/:code`, ({ res, params }) => {
    const code = escapeHtml(params.code ?? '')
    sendText(
      res,
      200,
      page(
        `Join ${discord.config.guildName}`,
        `<p>You have been invited to <strong>${escapeHtml(discord.config.guildName)}</strong> (emulated Discord, invite <code>${code}</code>).</p>
<form method="post" action="${base}/${code}"><p><label for="username">Your Discord username</label><br><input id="username" name="username" required autocomplete="username"></p><p><button type="submit">Accept Invite</button></p></form>`,
      ),
      'text/html; charset=utf-8',
    )
  })

  router.on('POST', `${base}/:code`, ({ res, params, rawBody }) => {
    const username = new URLSearchParams(rawBody.toString('utf8')).get('username')?.trim() ?? ''
    try {
      if (!username) throw new Error('Enter your Discord username.')
      const member = discord.join({ code: params.code ?? '', username })
      // A community invite's roles come with the join itself; otherwise the club's bot gives them.
      const roles =
        member.roles.length > 0
          ? `You have ${member.roles.length === 1 ? 'your role' : 'your roles'} already.`
          : 'EdgeClub gives you the member role within a few seconds.'
      sendText(
        res,
        200,
        page(
          'You joined the server',
          `<p>Welcome, <strong>${escapeHtml(username)}</strong>. ${roles} You can close this tab.</p>`,
        ),
        'text/html; charset=utf-8',
      )
    } catch (error) {
      const message =
        error instanceof DiscordError ? error.message : error instanceof Error ? error.message : String(error)
      sendText(
        res,
        400,
        page('This invite cannot be used', `<p>${escapeHtml(message)}</p>`),
        'text/html; charset=utf-8',
      )
    }
  })
}
