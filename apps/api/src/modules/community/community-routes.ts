import {
  BroadcastResultSchema,
  BroadcastSchema,
  DiscordHealthSchema,
  DiscordInviteSchema,
  DiscordStatusSchema,
  ModerationResultSchema,
  ModerationSchema,
} from '@edgeclub/shared'
import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod'
import { envelope, ok } from '../../lib/envelope'
import { bodyOf } from '../../plugins/audit'
import { authOf } from '../../plugins/auth'
import type { CommunityService } from './community-service'

/** Members: invites and status. Admins: kick, ban, unban, broadcast, health (audited). */
export const communityRoutes: FastifyPluginAsyncZod<{
  community: CommunityService
}> = async (app, { community }) => {
  const security = [{ bearerAuth: [] }]
  // The dashboard sends no body; any JSON body is accepted and ignored.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    if (typeof body !== 'string' || body.trim() === '') return done(null, undefined)
    try {
      done(null, JSON.parse(body))
    } catch {
      const error = Object.assign(new Error('The request body is not valid JSON'), {
        statusCode: 400,
        code: 'FST_ERR_CTP_INVALID_JSON_BODY',
      })
      done(error, undefined)
    }
  })

  app.post(
    '/discord/create-invite',
    {
      onRequest: app.requireAuth,
      schema: {
        tags: ['community'],
        security,
        summary: 'A single-use invite to the Discord server (members with access)',
        response: { 200: envelope(DiscordInviteSchema) },
      },
    },
    async (request) => ok(await community.createInvite(authOf(request).user), 'Your Discord invite is ready'),
  )

  app.get(
    '/discord/status',
    {
      onRequest: app.requireAuth,
      schema: {
        tags: ['community'],
        security,
        summary: "The member's Discord state (and a fresh look at it in the background)",
        response: { 200: envelope(DiscordStatusSchema) },
      },
    },
    async (request) => ok(await community.status(authOf(request).user)),
  )

  await app.register(async (scope) => {
    const admin = scope.withTypeProvider<ZodTypeProvider>()
    admin.addHook('onRequest', admin.requireAdmin)
    for (const action of ['kick', 'ban', 'unban'] as const) {
      admin.post(
        `/admin/users/${action}`,
        {
          config: {
            audit: {
              action: `discord.${action}`,
              targetType: 'user',
              target: (request) => String(bodyOf(request).userId),
              details: (request) => ({ reason: bodyOf(request).reason ?? null }),
            },
          },
          schema: {
            tags: ['admin'],
            security,
            summary: `${action[0]!.toUpperCase()}${action.slice(1)} a member in Discord and the Telegram chats`,
            body: ModerationSchema,
            response: { 200: envelope(ModerationResultSchema) },
          },
        },
        async (request) => {
          const result = await community.moderate(action, request.body.userId, request.body.reason)
          // Where it acted: "Member kicked from Discord and Telegram".
          const where = [result.discord ? 'Discord' : null, result.telegram ? 'Telegram' : null]
            .filter(Boolean)
            .join(' and ')
          return ok(
            result,
            action === 'unban'
              ? 'Member unbanned'
              : `Member ${action === 'kick' ? 'kicked' : 'banned'}${where ? ` from ${where}` : ''}`,
          )
        },
      )
    }

    admin.post(
      '/admin/broadcast',
      {
        config: {
          audit: {
            action: 'discord.broadcast',
            // The broadcast's id, set by the service (setAuditTarget): the form's, or a new one.
            targetType: 'broadcast',
            target: (request) => (bodyOf(request).broadcastId as string | undefined) ?? null,
            details: (request) => ({
              alsoEmail: bodyOf(request).alsoEmail,
              alsoTelegram: bodyOf(request).alsoTelegram ?? false,
            }),
          },
        },
        schema: {
          tags: ['admin'],
          security,
          summary:
            'Post to the announcements channel (and email members who opted in, and message members on Telegram)',
          body: BroadcastSchema,
          response: { 200: envelope(BroadcastResultSchema) },
        },
      },
      async (request) => ok(await community.broadcast(request.body, authOf(request).user), 'Broadcast sent'),
    )

    admin.get(
      '/admin/discord/health',
      {
        schema: {
          tags: ['admin'],
          security,
          summary: 'Bot, guild, channels, role and drift',
          response: { 200: envelope(DiscordHealthSchema) },
        },
      },
      async () => ok(await community.health()),
    )
  })
}
