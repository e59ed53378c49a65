import {
  AdminPlanPageSchema,
  AdminPlanSchema,
  AdminPlansQuerySchema,
  PlanInputSchema,
  PlanRemovalSchema,
  PlanUpdateSchema,
  text,
} from '@edgeclub/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { envelope, ok } from '../../lib/envelope'
import { bodyOf } from '../../plugins/audit'
import type { PlansAdminService } from './plans-admin-service'

const IdParams = z.object({ id: text().min(1).max(64) })

/** The admin console's plans editor (admins only; changes audited). The public list is in plans-routes.ts. */
export const plansAdminRoutes: FastifyPluginAsyncZod<{ plansAdmin: PlansAdminService }> = async (
  app,
  { plansAdmin },
) => {
  const tags = ['admin']
  const security = [{ bearerAuth: [] }]
  app.addHook('onRequest', app.requireAdmin)

  app.get(
    '/admin/plans',
    {
      schema: {
        tags,
        security,
        summary: 'All plans, archived included',
        querystring: AdminPlansQuerySchema,
        response: { 200: envelope(AdminPlanPageSchema) },
      },
    },
    async (request) => ok(await plansAdmin.list(request.query)),
  )

  app.get(
    '/admin/plans/:id',
    {
      schema: {
        tags,
        security,
        summary: 'One plan',
        params: IdParams,
        response: { 200: envelope(AdminPlanSchema) },
      },
    },
    async (request) => ok(await plansAdmin.detail(request.params.id)),
  )

  app.post(
    '/admin/plans',
    {
      config: { audit: { action: 'plan.create', targetType: 'plan', target: (r) => String(bodyOf(r).slug) } },
      schema: {
        tags,
        security,
        summary: 'Create a plan',
        body: PlanInputSchema,
        response: { 201: envelope(AdminPlanSchema) },
      },
    },
    async (request, reply) => {
      const plan = await plansAdmin.create(request.body)
      return reply.status(201).send(ok(plan, 'Plan created'))
    },
  )

  app.put(
    '/admin/plans/:id',
    {
      config: {
        audit: {
          action: 'plan.update',
          targetType: 'plan',
          details: (r) => ({ fields: Object.keys(bodyOf(r)) }),
        },
      },
      schema: {
        tags,
        security,
        summary: 'Update a plan (a new price makes a new Stripe price)',
        params: IdParams,
        body: PlanUpdateSchema,
        response: { 200: envelope(AdminPlanSchema) },
      },
    },
    async (request) => ok(await plansAdmin.update(request.params.id, request.body), 'Plan updated'),
  )

  app.delete(
    '/admin/plans/:id',
    {
      config: { audit: { action: 'plan.delete', targetType: 'plan' } },
      schema: {
        tags,
        security,
        summary: 'Delete an unused plan, or archive one that was ever used',
        params: IdParams,
        response: { 200: envelope(PlanRemovalSchema) },
      },
    },
    async (request) => {
      const result = await plansAdmin.remove(request.params.id)
      return ok(result, result.archived ? 'Plan archived (it has subscribers)' : 'Plan deleted')
    },
  )

  app.post(
    '/admin/plans/:id/toggle',
    {
      config: { audit: { action: 'plan.toggle', targetType: 'plan' } },
      schema: {
        tags,
        security,
        summary: "Switch a plan's active flag",
        params: IdParams,
        response: { 200: envelope(AdminPlanSchema) },
      },
    },
    async (request) => {
      const plan = await plansAdmin.toggle(request.params.id)
      return ok(plan, plan.isActive ? 'Plan activated' : 'Plan deactivated')
    },
  )
}
