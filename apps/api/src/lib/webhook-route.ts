/**
 * Route options for signed webhook deliveries: outside the per-IP API budget, because a provider sends
 * every delivery from a few addresses and a refused one is retried for days. The signature is their
 * gate; a bad one is refused before any work and logged as a security event.
 */
export const WEBHOOK_ROUTE = { config: { rateLimit: false } } as const
