import { PlanSchema } from '@edgeclub/shared'
import type { FastifyPluginAsync } from 'fastify'
import { z } from 'zod'
import { cachedJsonRoute } from '../../lib/cached-route'
import type { PlansService } from './plans-service'

/** The public plan list, on the two SPEC paths that serve it (the pricing page's and the dashboard's). */
export const planRoutes: FastifyPluginAsync<{ plans: PlansService }> = async (app, { plans }) => {
  const lists = [
    { url: '/admin/plans/public/active', tag: 'plans', summary: 'Active plans for the pricing page' },
    { url: '/subscriptions/plans', tag: 'subscriptions', summary: 'Plans a member can subscribe to' },
  ]
  for (const { url, tag, summary } of lists)
    cachedJsonRoute(app, {
      url,
      tags: [tag],
      summary,
      data: z.array(PlanSchema),
      load: () => plans.listActive(),
      // Edits through this instance show at once; other instances' edits within this.
      ttlMs: 5_000,
      cacheControl: 'public, max-age=10, stale-while-revalidate=60',
      invalidatedBy: plans.changed,
    })
}
