import {
  PushKeySchema,
  PushPreferencesSchema,
  PushSettingsSchema,
  pushMessages,
  SubscribePushSchema,
  UnsubscribePushSchema,
} from '@edgeclub/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { envelope, ok } from '../../lib/envelope'
import { authOf } from '../../plugins/auth'
import type { PushService } from './push-service'

/** Members: the server's push key, their devices' subscriptions and their notification choices. */
export const pushRoutes: FastifyPluginAsyncZod<{ push: PushService }> = async (app, { push }) => {
  const security = [{ bearerAuth: [] }]
  const tags = ['push']

  app.get(
    '/push/key',
    {
      onRequest: app.requireAuth,
      schema: {
        tags,
        security,
        summary: "The server's VAPID public key (the browser's applicationServerKey when subscribing)",
        response: { 200: envelope(PushKeySchema) },
      },
    },
    async () => ok({ publicKey: push.publicKey() }),
  )

  app.post(
    '/push/subscriptions',
    {
      onRequest: app.requireAuth,
      schema: {
        tags,
        security,
        summary: "Turns notifications on for this browser (its PushSubscription) with the member's choices",
        body: SubscribePushSchema,
        response: { 200: envelope(PushSettingsSchema) },
      },
    },
    async (request) =>
      ok(
        await push.subscribe(authOf(request).user, request.body.subscription, request.body.preferences),
        pushMessages.subscribed,
      ),
  )

  app.delete(
    '/push/subscriptions',
    {
      onRequest: app.requireAuth,
      schema: {
        tags,
        security,
        summary: 'Turns notifications off for this browser (by its endpoint)',
        body: UnsubscribePushSchema,
        response: { 200: envelope(PushSettingsSchema) },
      },
    },
    async (request) =>
      ok(await push.unsubscribe(authOf(request).user, request.body.endpoint), pushMessages.unsubscribed),
  )

  app.get(
    '/push/preferences',
    {
      onRequest: app.requireAuth,
      schema: {
        tags,
        security,
        summary: 'What notifies the member (kinds, sports) and how many of their devices have it on',
        response: { 200: envelope(PushSettingsSchema) },
      },
    },
    async (request) => ok(await push.settings(authOf(request).user)),
  )

  app.put(
    '/push/preferences',
    {
      onRequest: app.requireAuth,
      schema: {
        tags,
        security,
        summary: "The member's notification choices, for every device with notifications on",
        body: PushPreferencesSchema,
        response: { 200: envelope(PushSettingsSchema) },
      },
    },
    async (request) => ok(await push.setPreferences(authOf(request).user, request.body), pushMessages.saved),
  )
}
