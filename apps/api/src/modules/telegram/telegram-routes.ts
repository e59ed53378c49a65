import { timingSafeEqual } from 'node:crypto'
import {
  TelegramConnectSchema,
  TelegramDisconnectResultSchema,
  TelegramSettingsSchema,
  TelegramStatusSchema,
  TelegramWebhookAckSchema,
  telegramMessages,
} from '@edgeclub/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import type { Update } from 'grammy/types'
import { z } from 'zod'
import { envelope, ok } from '../../lib/envelope'
import { AppError } from '../../lib/errors'
import { securityEvent } from '../../lib/security-log'
import { WEBHOOK_ROUTE } from '../../lib/webhook-route'
import { authOf } from '../../plugins/auth'
import type { TelegramService } from './telegram-service'

/** The header Telegram sends with every update once the webhook was set with a `secret_token`. */
const SECRET_HEADER = 'x-telegram-bot-api-secret-token'

/** An update as far as the route checks it; grammY reads the rest. */
const UpdateSchema = z.looseObject({ update_id: z.number().int().nonnegative() })

function sameSecret(given: unknown, expected: string | undefined): boolean {
  if (typeof given !== 'string' || !expected) return false
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** Members: Connect Telegram, status, settings, disconnect. Telegram: the webhook. */
export const telegramRoutes: FastifyPluginAsyncZod<{
  telegram: TelegramService
  webhookSecret: string | undefined
}> = async (app, { telegram, webhookSecret }) => {
  const security = [{ bearerAuth: [] }]

  app.post(
    '/telegram/connect',
    {
      onRequest: app.requireAuth,
      schema: {
        tags: ['community'],
        security,
        summary:
          'Connect Telegram: a one-time deep link to the bot (its start token is single-use and expires)',
        response: { 200: envelope(TelegramConnectSchema) },
      },
    },
    async (request) => ok(await telegram.connect(authOf(request).user), telegramMessages.connectHint),
  )

  app.get(
    '/telegram/status',
    {
      onRequest: app.requireAuth,
      schema: {
        tags: ['community'],
        security,
        summary: "The member's Telegram account and the chats their plan opens",
        response: { 200: envelope(TelegramStatusSchema) },
      },
    },
    async (request) => ok(await telegram.status(authOf(request).user)),
  )

  app.put(
    '/telegram/settings',
    {
      onRequest: app.requireAuth,
      schema: {
        tags: ['community'],
        security,
        summary: 'Renewal and failed-payment reminders by bot message too',
        body: TelegramSettingsSchema,
        response: { 200: envelope(TelegramStatusSchema) },
      },
    },
    async (request) => ok(await telegram.saveSettings(authOf(request).user, request.body), 'Saved'),
  )

  app.post(
    '/telegram/disconnect',
    {
      onRequest: app.requireAuth,
      schema: {
        tags: ['community'],
        security,
        summary: 'Untie the Telegram account (it leaves the EdgeClub chats)',
        response: { 200: envelope(TelegramDisconnectResultSchema) },
      },
    },
    async (request) => {
      const result = await telegram.disconnect(authOf(request).user)
      return ok(result, telegramMessages.disconnected(result.username))
    },
  )

  app.post(
    '/webhooks/telegram',
    {
      ...WEBHOOK_ROUTE,
      // The secret is checked before the body is even read: a wrong one changes nothing.
      onRequest: async (request) => {
        if (sameSecret(request.headers[SECRET_HEADER], webhookSecret)) return
        securityEvent(request, 'webhook.signature.invalid', {
          provider: 'telegram',
          reason: request.headers[SECRET_HEADER] === undefined ? 'missing' : 'mismatch',
        })
        throw new AppError('UNAUTHORIZED', 'Missing or wrong X-Telegram-Bot-Api-Secret-Token')
      },
      schema: {
        tags: ['webhooks'],
        summary: 'Telegram updates (X-Telegram-Bot-Api-Secret-Token must match TELEGRAM_WEBHOOK_SECRET)',
        body: UpdateSchema,
        response: { 200: envelope(TelegramWebhookAckSchema) },
      },
    },
    async (request) => {
      // 2xx only once the update is handled and what it causes is queued; Telegram retries otherwise.
      await telegram.handleUpdate(request.body as Update)
      return ok({ received: true as const })
    },
  )
}
