import { ClientConfigSchema } from '@edgeclub/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import type { Config } from '../../config'
import { btcpaySettings } from '../../integrations/btcpay/btcpay-client'
import { envelope, ok } from '../../lib/envelope'

/** What the browser may know about the server's setup; never a secret. */
export const clientConfigRoutes: FastifyPluginAsyncZod<{ config: Config }> = async (app, { config }) => {
  const data = {
    stripePublishableKey: config.stripe.publishableKey ?? null,
    stripeJsUrl: config.env === 'production' ? null : (config.stripe.jsUrl ?? null),
    cryptoEnabled: btcpaySettings(config.btcpay) !== undefined,
    discordEnabled: Boolean(config.discord.botToken && config.discord.guildId),
    pushStandInUrl: config.env === 'production' ? null : (config.push.standInUrl ?? null),
  }
  app.get(
    '/config',
    {
      schema: {
        tags: ['config'],
        summary: 'Public client configuration',
        response: { 200: envelope(ClientConfigSchema) },
      },
    },
    async () => ok(data),
  )
}
