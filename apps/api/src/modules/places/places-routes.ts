import {
  DiscordRoleOptionSchema,
  PlaceInputSchema,
  PlaceSchema,
  PlacesOverviewSchema,
  PlaceUpdateSchema,
  text,
} from '@edgeclub/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { envelope, ok } from '../../lib/envelope'
import { bodyOf } from '../../plugins/audit'
import type { PlacesService } from './places-service'

const IdParams = z.object({ id: text().min(1).max(64) })

/** The admin console's places: Discord roles and Telegram chats plans can grant (admins; audited). */
export const placesRoutes: FastifyPluginAsyncZod<{ places: PlacesService }> = async (app, { places }) => {
  const tags = ['admin']
  const security = [{ bearerAuth: [] }]
  app.addHook('onRequest', app.requireAdmin)

  app.get(
    '/admin/places',
    {
      schema: {
        tags,
        security,
        summary: 'The places plans can grant, which plans grant each, and the signal categories used so far',
        response: { 200: envelope(PlacesOverviewSchema) },
      },
    },
    async () => ok(await places.overview()),
  )

  app.get(
    '/admin/places/discord-roles',
    {
      schema: {
        tags,
        security,
        summary: "Roles of the club's Discord server the bot can give",
        response: { 200: envelope(z.array(DiscordRoleOptionSchema)) },
      },
    },
    async () => ok(await places.discordRoleOptions()),
  )

  app.post(
    '/admin/places',
    {
      config: {
        audit: {
          action: 'place.add',
          targetType: 'place',
          target: () => null,
          details: (request) => ({ kind: bodyOf(request).kind }),
        },
      },
      schema: {
        tags,
        security,
        summary: 'Add a Telegram chat (the bot must administer it) or a Discord role as a place',
        body: PlaceInputSchema,
        response: { 201: envelope(PlaceSchema) },
      },
    },
    async (request, reply) => reply.status(201).send(ok(await places.addPlace(request.body), 'Place added')),
  )

  app.put(
    '/admin/places/:id',
    {
      config: { audit: { action: 'place.update', targetType: 'place' } },
      schema: {
        tags,
        security,
        summary: 'Which signal categories a Telegram chat gets',
        params: IdParams,
        body: PlaceUpdateSchema,
        response: { 200: envelope(PlaceSchema) },
      },
    },
    async (request) => ok(await places.updatePlace(request.params.id, request.body), 'Place updated'),
  )

  app.delete(
    '/admin/places/:id',
    {
      config: { audit: { action: 'place.remove', targetType: 'place' } },
      schema: {
        tags,
        security,
        summary: 'Stop offering a place (plans no longer grant it)',
        params: IdParams,
        response: { 200: envelope(z.object({ removed: z.boolean() })) },
      },
    },
    async (request) => ok(await places.removePlace(request.params.id), 'Place removed'),
  )
}
