import { REST } from '@discordjs/rest'
import {
  type APIUser,
  OAuth2Scopes,
  type RESTPostOAuth2AccessTokenResult,
  Routes,
} from 'discord-api-types/v10'

/**
 * Discord's OAuth2 authorization-code grant for Connect Discord, through @discordjs/rest like every
 * other Discord call: the consent-page URL, the code exchange (client credentials in the form, as
 * Discord documents it) and the user behind an access token. A REST instance of its own, without the
 * bot token: user-token calls never touch the bot's buckets, and a 401 here cannot unset the bot's
 * token (@discordjs/rest forgets its token on a 401 only for requests that sent it).
 */

export interface DiscordOAuthSettings {
  clientId: string
  clientSecret: string
  redirectUri: string
  authorizeUrl: string
  apiBase: string
}

/** identify: who the member is on Discord. guilds.join: the bot may add them to the server. */
const CONNECT_SCOPES = [OAuth2Scopes.Identify, OAuth2Scopes.GuildsJoin] as const

export function createDiscordOAuth(settings: DiscordOAuthSettings) {
  const rest = new REST({ version: '10', retries: 0, timeout: 15_000, api: settings.apiBase })

  return {
    settings,

    /**
     * Discord's consent page for this member's attempt: `state` comes back on the redirect, and the
     * code Discord issues is bound to `codeChallenge` (PKCE, S256: the only method Discord takes).
     */
    authorizeUrl(state: string, codeChallenge: string): string {
      const url = new URL(settings.authorizeUrl)
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: settings.clientId,
        scope: CONNECT_SCOPES.join(' '),
        state,
        redirect_uri: settings.redirectUri,
        prompt: 'consent',
        code_challenge: codeChallenge,
        code_challenge_method: 'S256',
      }).toString()
      return url.toString()
    },

    /**
     * The code from the redirect, with the attempt's PKCE verifier, for the member's tokens (the caller
     * uses the access token once). A code issued on another attempt does not match the verifier.
     */
    exchangeCode: (code: string, codeVerifier: string) =>
      rest.post(Routes.oauth2TokenExchange(), {
        auth: false,
        passThroughBody: true,
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: settings.redirectUri,
          client_id: settings.clientId,
          client_secret: settings.clientSecret,
          code_verifier: codeVerifier,
        }),
      }) as Promise<RESTPostOAuth2AccessTokenResult>,

    /** GET /users/@me with the member's access token: the account they authorized with. */
    currentUser: (accessToken: string) =>
      rest.get(Routes.user('@me'), {
        auth: false,
        headers: { Authorization: `Bearer ${accessToken}` },
      }) as Promise<APIUser>,
  }
}
export type DiscordOAuth = ReturnType<typeof createDiscordOAuth>
