import {
  DiscordCallbackSchema,
  DiscordConnectResultSchema,
  DiscordConnectStartSchema,
  DiscordDisconnectResultSchema,
  discordConnectMessages,
} from '@edgeclub/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { envelope, ok } from '../../lib/envelope'
import { authOf } from '../../plugins/auth'
import type { DiscordConnectService } from './discord-connect-service'

/** Connect Discord (OAuth2): start, the callback the web app passes on, and disconnect. Members only. */
export const discordConnectRoutes: FastifyPluginAsyncZod<{ connect: DiscordConnectService }> = async (
  app,
  { connect },
) => {
  const security = [{ bearerAuth: [] }]

  app.post(
    '/discord/connect',
    {
      onRequest: app.requireAuth,
      schema: {
        tags: ['community'],
        security,
        summary:
          "Start Connect Discord: Discord's consent page (identify, guilds.join) with a single-use state",
        response: { 200: envelope(DiscordConnectStartSchema) },
      },
    },
    async (request) => ok(await connect.start(authOf(request).user)),
  )

  app.post(
    '/discord/connect/callback',
    {
      onRequest: app.requireAuth,
      schema: {
        tags: ['community'],
        security,
        summary:
          'Finish Connect Discord with what Discord put on the redirect URI (code and state, or error); joins the server while the member has access',
        body: DiscordCallbackSchema,
        response: { 200: envelope(DiscordConnectResultSchema) },
      },
    },
    async (request) => {
      const { result, message } = await connect.complete(authOf(request).user, request.body)
      return ok(result, message)
    },
  )

  app.post(
    '/discord/disconnect',
    {
      onRequest: app.requireAuth,
      schema: {
        tags: ['community'],
        security,
        summary: 'Disconnect the connected Discord account (its member role is removed); a few times a day',
        response: { 200: envelope(DiscordDisconnectResultSchema) },
      },
    },
    async (request) => {
      const result = await connect.disconnect(authOf(request).user)
      return ok(result, discordConnectMessages.disconnected(result.username))
    },
  )
}
