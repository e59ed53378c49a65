import { createRequire } from 'node:module'
import type Stripe from 'stripe'

const require = createRequire(import.meta.url)

/**
 * The official Stripe SDK, pointed at api.stripe.com or (STRIPE_API_BASE) at another base such as
 * the local emulator. Nothing else about the integration changes with the base URL.
 */
export function createStripe(options: {
  secretKey: string | undefined
  apiBase: string | undefined
}): Stripe | undefined {
  if (!options.secretKey) return undefined
  // Loaded only when Stripe is configured: the SDK is a large part of the server's start-up otherwise.
  const StripeSdk = require('stripe') as typeof Stripe
  const base = options.apiBase ? new URL(options.apiBase) : undefined
  return new StripeSdk(options.secretKey, {
    maxNetworkRetries: 2,
    timeout: 20_000,
    appInfo: { name: 'EdgeClub' },
    ...(base
      ? {
          host: base.hostname,
          port: base.port ? Number(base.port) : base.protocol === 'https:' ? 443 : 80,
          protocol: base.protocol.replace(':', '') as 'http' | 'https',
        }
      : {}),
  })
}

export type { Stripe }
