/**
 * Route options for public answers served from memory (plans, prices). Limiting or compressing
 * them costs more than serving them, and they are small; see docs/decisions/004.
 */
export const HOT_ROUTE = { config: { rateLimit: false }, compress: false } as const
