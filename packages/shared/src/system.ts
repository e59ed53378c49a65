import { z } from 'zod'

/** GET /healthz: the process answers. */
export const HealthSchema = z.object({ status: z.literal('ok') })

/** GET /readyz: the database answers and the process is not shutting down. */
export const ReadinessSchema = z.object({ status: z.literal('ready'), database: z.literal('ok') })

/** A payment processor's webhook delivery was received (and what came of it). */
export const WebhookAckSchema = z.object({ received: z.literal(true), outcome: z.string() })
export type WebhookAck = z.infer<typeof WebhookAckSchema>

/** What the browser may know about the server's setup; never a secret. */
export const ClientConfigSchema = z.object({
  stripePublishableKey: z.string().nullable(),
  /** Outside production, a Stripe.js stand-in to load instead of js.stripe.com (the emulator's). */
  stripeJsUrl: z.string().nullable(),
  cryptoEnabled: z.boolean(),
  discordEnabled: z.boolean(),
  /**
   * Outside production, a push service to subscribe at instead of the browser's own (the emulator's:
   * offline, the browser's push service cannot be reached). Decision 023.
   */
  pushStandInUrl: z.string().nullable(),
})
export type ClientConfig = z.infer<typeof ClientConfigSchema>
