import { PlanSchema } from '@edgeclub/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { sendCachedJson } from '../../lib/cached-json'
import { envelope } from '../../lib/envelope'
import { HOT_ROUTE } from '../../lib/hot-route'
import type { PlansService } from './plans-service'

const PlansResponse = envelope(z.array(PlanSchema))

export const planRoutes: FastifyPluginAsyncZod<{ plans: PlansService }> = async (app, { plans }) => {
  const publicCache = 'public, max-age=10, stale-while-revalidate=60'

  // Two paths serve the same list: the pricing page's and the subscription tab's.
  const lists = [
    { url: '/admin/plans/public/active', tag: 'plans', summary: 'Active plans for the pricing page' },
    { url: '/subscriptions/plans', tag: 'subscriptions', summary: 'Plans a member can subscribe to' },
  ]
  for (const { url, tag, summary } of lists) {
    app.get(
      url,
      { ...HOT_ROUTE, schema: { tags: [tag], summary, response: { 200: PlansResponse } } },
      async (request, reply) => sendCachedJson(request, reply, await plans.listActiveCached(), publicCache),
    )
  }
}
