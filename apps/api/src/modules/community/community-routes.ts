import { BroadcastSchema, ModerationSchema } from '@edgeclub/shared'
import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { envelope, ok } from '../../lib/envelope'
import { authOf } from '../../plugins/auth'
import type { Audit } from '../admin/audit'
import { audited } from '../admin/audited'
import type { CommunityService } from './community-service'

const InviteSchema = z.object({
  inviteUrl: z.string(),
  targetUsername: z.string(),
  expiresAt: z.string(),
  maxUses: z.number().int(),
})

/** Members: invites and status. Admins: kick, ban, unban, broadcast, health (audited). */
export const communityRoutes: FastifyPluginAsyncZod<{
  community: CommunityService
  audit: Audit
  requestSync: (userId: string) => Promise<void>
}> = async (app, { community, audit, requestSync }) => {
  const security = [{ bearerAuth: [] }]
  // SPEC §7: the dashboard sends no body; any JSON body is accepted and ignored.
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
      preHandler: app.requireAuth,
      schema: {
        tags: ['community'],
        security,
        summary: 'A single-use invite to the Discord server (members with access)',
        response: { 200: envelope(InviteSchema) },
      },
    },
    async (request) => ok(await community.createInvite(authOf(request).user), 'Your Discord invite is ready'),
  )

  app.get(
    '/discord/status',
    {
      preHandler: app.requireAuth,
      schema: {
        tags: ['community'],
        security,
        summary: "The member's Discord state (and a fresh look at it in the background)",
        response: {
          200: envelope(
            z.object({
              configured: z.boolean(),
              state: z.string(),
              roleGranted: z.boolean(),
              discordUsername: z.string(),
              invite: InviteSchema.nullable(),
            }),
          ),
        },
      },
    },
    async (request) => {
      const status = await community.status(authOf(request).user)
      // A member waiting to join gets their role as soon as we see them in the server.
      if (status.configured && status.state !== 'banned') await requestSync(authOf(request).user.id)
      return ok(status)
    },
  )

  await app.register(async (scope) => {
    const admin = scope.withTypeProvider<ZodTypeProvider>()
    admin.addHook('preHandler', admin.requireAdmin)
    for (const action of ['kick', 'ban', 'unban'] as const) {
      admin.post(
        `/admin/users/${action}`,
        {
          schema: {
            tags: ['admin'],
            security,
            summary: `${action[0]!.toUpperCase()}${action.slice(1)} a member in Discord`,
            body: ModerationSchema,
          },
        },
        async (request) => {
          const result = await audited(
            audit,
            request,
            {
              action: `discord.${action}`,
              targetType: 'user',
              targetId: request.body.userId,
              details: { reason: request.body.reason ?? null },
            },
            () => community.moderate(action, request.body.userId, request.body.reason),
          )
          return ok(
            result,
            action === 'kick'
              ? 'Member kicked from Discord'
              : action === 'ban'
                ? 'Member banned from Discord'
                : 'Member unbanned',
          )
        },
      )
    }

    admin.post(
      '/admin/broadcast',
      {
        schema: {
          tags: ['admin'],
          security,
          summary: 'Post to the announcements channel (and email members who opted in)',
          body: BroadcastSchema,
        },
      },
      async (request) =>
        ok(
          await audited(
            audit,
            request,
            {
              action: 'discord.broadcast',
              targetType: 'channel',
              targetId: null,
              details: { alsoEmail: request.body.alsoEmail },
            },
            () => community.broadcast(request.body),
          ),
          'Broadcast sent',
        ),
    )

    admin.get(
      '/admin/discord/health',
      { schema: { tags: ['admin'], security, summary: 'Bot, guild, channels, role and drift' } },
      async () => ok(await community.health()),
    )
  })
}
