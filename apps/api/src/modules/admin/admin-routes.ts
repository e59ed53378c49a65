import {
  AdminPaymentsQuerySchema,
  AdminPlansQuerySchema,
  AdminSubscriptionsQuerySchema,
  AdminUsersQuerySchema,
  DisableSchema,
  GrantAccessSchema,
  PageQuerySchema,
  PaginationSchema,
  PlanInputSchema,
  PlanSchema,
  PlanUpdateSchema,
  RefundSchema,
  RoleChangeSchema,
} from '@edgeclub/shared'
import type { FastifyReply } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { toCsv } from '../../lib/csv'
import { envelope, ok } from '../../lib/envelope'
import { authOf } from '../../plugins/auth'
import { toPaymentView } from '../payments/payment-views'
import type { PaymentsRepository } from '../payments/payments-repository'
import { pages } from '../payments/payments-routes'
import { type PlansAdminService, toAdminPlan } from '../plans/plans-admin-service'
import type { PlansRepository } from '../plans/plans-repository'
import type { SubscriptionsRepository } from '../subscriptions/subscriptions-repository'
import { toSubscriptionView } from '../subscriptions/subscriptions-service'
import type { AdminService } from './admin-service'
import type { Audit } from './audit'
import { audited } from './audited'

const AdminPlanSchema = PlanSchema.extend({ archived: z.boolean(), subscriberCount: z.number().int() })
const IdParams = z.object({ id: z.string().min(1).max(64) })
const ExportQuery = z.object({ format: z.literal('csv').optional() })
const EXPORT_LIMIT = 10_000

function sendCsv(reply: FastifyReply, name: string, body: string) {
  return reply
    .header('content-type', 'text/csv; charset=utf-8')
    .header(
      'content-disposition',
      `attachment; filename="${name}-${new Date().toISOString().slice(0, 10)}.csv"`,
    )
    .send(body)
}

/** Every /admin route but the public plan list: admins only (401 anonymous, 403 members), audited. */
export const adminRoutes: FastifyPluginAsyncZod<{
  admin: AdminService
  audit: Audit
  plansAdmin: PlansAdminService
  plans: PlansRepository
  payments: PaymentsRepository
  subscriptions: SubscriptionsRepository
}> = async (app, deps) => {
  const tags = ['admin']
  const security = [{ bearerAuth: [] }]
  app.addHook('preHandler', app.requireAdmin)

  // ---- members
  app.get(
    '/admin/users',
    {
      schema: {
        tags,
        security,
        summary: 'Members: search (email, name, Discord username, plan), sort, paginate; ?format=csv exports',
        querystring: AdminUsersQuerySchema.extend(ExportQuery.shape),
      },
    },
    async (request, reply) => {
      const { format, ...query } = request.query
      if (format === 'csv') {
        const { rows } = await deps.admin.listUsers({ ...query, page: 1, limit: EXPORT_LIMIT })
        return sendCsv(
          reply,
          'members',
          toCsv(rows, [
            { header: 'id', value: (u) => u.id },
            { header: 'email', value: (u) => u.email },
            { header: 'first_name', value: (u) => u.firstName },
            { header: 'last_name', value: (u) => u.lastName },
            { header: 'discord_username', value: (u) => u.discordUsername },
            { header: 'role', value: (u) => u.role },
            { header: 'has_access', value: (u) => u.hasAccess },
            { header: 'disabled', value: (u) => u.disabled },
            { header: 'created_at', value: (u) => u.createdAt },
          ]),
        )
      }
      const { rows, total } = await deps.admin.listUsers(query)
      return ok({ items: rows, pagination: pages(query.page, query.limit, total) })
    },
  )

  app.get(
    '/admin/users/:id',
    {
      schema: {
        tags,
        security,
        summary: 'A member with their subscriptions, payments and Discord state',
        params: IdParams,
      },
    },
    async (request) => ok(await deps.admin.userDetail(request.params.id)),
  )

  app.post(
    '/admin/users/:id/grant',
    {
      schema: {
        tags,
        security,
        summary: 'Grant complimentary access for N days',
        params: IdParams,
        body: GrantAccessSchema,
        response: { 200: envelope(z.object({ endDate: z.string(), plan: z.string() })) },
      },
    },
    async (request) =>
      ok(
        await audited(
          deps.audit,
          request,
          {
            action: 'user.grant',
            targetType: 'user',
            targetId: request.params.id,
            details: { days: request.body.days },
          },
          () => deps.admin.grant(request.params.id, request.body),
        ),
        `Access granted for ${request.body.days} days`,
      ),
  )

  app.post(
    '/admin/users/:id/role',
    {
      schema: {
        tags,
        security,
        summary: 'Promote to admin or demote to member',
        params: IdParams,
        body: RoleChangeSchema,
      },
    },
    async (request) =>
      ok(
        await audited(
          deps.audit,
          request,
          {
            action: 'user.role',
            targetType: 'user',
            targetId: request.params.id,
            details: { role: request.body.role },
          },
          () => deps.admin.setRole(authOf(request).user, request.params.id, request.body.role),
        ),
        `Role changed to ${request.body.role}`,
      ),
  )

  app.post(
    '/admin/users/:id/disable',
    {
      schema: {
        tags,
        security,
        summary: 'Disable (signs out everywhere) or enable an account',
        params: IdParams,
        body: DisableSchema,
      },
    },
    async (request) =>
      ok(
        await audited(
          deps.audit,
          request,
          {
            action: request.body.disabled ? 'user.disable' : 'user.enable',
            targetType: 'user',
            targetId: request.params.id,
          },
          () => deps.admin.setDisabled(authOf(request).user, request.params.id, request.body.disabled),
        ),
        request.body.disabled ? 'Account disabled' : 'Account enabled',
      ),
  )

  // ---- subscriptions and payments
  app.get(
    '/admin/subscriptions',
    {
      schema: {
        tags,
        security,
        summary: 'Subscriptions: search, filter by status, sort, paginate; ?format=csv exports',
        querystring: AdminSubscriptionsQuerySchema.extend(ExportQuery.shape),
      },
    },
    async (request, reply) => {
      const { format, ...query } = request.query
      const { rows, total } = await deps.subscriptions.list(
        format === 'csv' ? { ...query, page: 1, limit: EXPORT_LIMIT } : query,
      )
      const items = rows.map((row) => ({
        ...toSubscriptionView(row),
        userId: row.user_id,
        userEmail: row.user_email,
      }))
      if (format === 'csv') {
        return sendCsv(
          reply,
          'subscriptions',
          toCsv(items, [
            { header: 'id', value: (s) => s.id },
            { header: 'member', value: (s) => s.userEmail },
            { header: 'plan', value: (s) => s.planId.name },
            { header: 'status', value: (s) => s.status },
            { header: 'provider', value: (s) => s.provider },
            { header: 'start_date', value: (s) => s.startDate },
            { header: 'end_date', value: (s) => s.endDate },
            { header: 'cancel_at_period_end', value: (s) => s.cancelAtPeriodEnd },
          ]),
        )
      }
      return ok({ items, pagination: pages(query.page, query.limit, total) })
    },
  )

  app.get(
    '/admin/payments',
    {
      schema: {
        tags,
        security,
        summary: 'Payments: search, filter by provider and status, sort, paginate; ?format=csv exports',
        querystring: AdminPaymentsQuerySchema.extend(ExportQuery.shape),
      },
    },
    async (request, reply) => {
      const { format, ...query } = request.query
      const { rows, total } = await deps.payments.list(
        format === 'csv' ? { ...query, page: 1, limit: EXPORT_LIMIT } : query,
      )
      const items = rows.map((row) => toPaymentView(row, { includeEmail: true }))
      if (format === 'csv') {
        return sendCsv(
          reply,
          'payments',
          toCsv(items, [
            { header: 'id', value: (p) => p.id },
            { header: 'member', value: (p) => p.userEmail },
            { header: 'kind', value: (p) => p.kind },
            { header: 'plan', value: (p) => p.planId?.name },
            { header: 'amount', value: (p) => p.amount.toFixed(2) },
            { header: 'refunded', value: (p) => p.amountRefunded.toFixed(2) },
            { header: 'currency', value: (p) => p.currency },
            { header: 'status', value: (p) => p.status },
            { header: 'provider', value: (p) => p.provider },
            { header: 'created_at', value: (p) => p.createdAt },
          ]),
        )
      }
      return ok({ items, pagination: pages(query.page, query.limit, total) })
    },
  )

  app.post(
    '/admin/payments/:id/refund',
    {
      schema: {
        tags,
        security,
        summary: 'Refund a card payment in full or in part',
        params: IdParams,
        body: RefundSchema,
        response: { 200: envelope(z.object({ status: z.string(), amountRefunded: z.number() })) },
      },
    },
    async (request) =>
      ok(
        await audited(
          deps.audit,
          request,
          {
            action: 'payment.refund',
            targetType: 'payment',
            targetId: request.params.id,
            details: { amount: request.body.amount ?? 'full' },
          },
          () => deps.admin.refund(request.params.id, request.body),
        ),
        'Refund issued',
      ),
  )

  app.get(
    '/admin/analytics',
    { schema: { tags, security, summary: 'Members, MRR, revenue per month, churn, plan mix and tips' } },
    async () => ok(await deps.admin.analytics()),
  )

  app.get(
    '/admin/audit',
    {
      schema: {
        tags,
        security,
        summary: 'The audit log, newest first',
        querystring: PageQuerySchema.extend({ targetId: z.string().max(64).optional() }),
      },
    },
    async (request) => {
      const { rows, total } = await deps.audit.list(request.query)
      return ok({ items: rows, pagination: pages(request.query.page, request.query.limit, total) })
    },
  )

  // ---- plans
  app.get(
    '/admin/plans',
    {
      schema: {
        tags,
        security,
        summary: 'All plans, archived included',
        querystring: AdminPlansQuerySchema,
        response: {
          200: envelope(z.object({ items: z.array(AdminPlanSchema), pagination: PaginationSchema })),
        },
      },
    },
    async (request) => {
      const { rows, total } = await deps.plans.list(request.query)
      return ok({
        items: rows.map(toAdminPlan),
        pagination: pages(request.query.page, request.query.limit, total),
      })
    },
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
    async (request) => ok(toAdminPlan(await deps.plansAdmin.detail(request.params.id))),
  )

  app.post(
    '/admin/plans',
    {
      schema: {
        tags,
        security,
        summary: 'Create a plan',
        body: PlanInputSchema,
        response: { 201: envelope(AdminPlanSchema) },
      },
    },
    async (request, reply) => {
      const plan = await audited(
        deps.audit,
        request,
        { action: 'plan.create', targetType: 'plan', targetId: request.body.slug },
        () => deps.plansAdmin.create(request.body),
      )
      return reply.status(201).send(ok(toAdminPlan(plan), 'Plan created'))
    },
  )

  app.put(
    '/admin/plans/:id',
    {
      schema: {
        tags,
        security,
        summary: 'Update a plan (a new price makes a new Stripe price)',
        params: IdParams,
        body: PlanUpdateSchema,
        response: { 200: envelope(AdminPlanSchema) },
      },
    },
    async (request) =>
      ok(
        toAdminPlan(
          await audited(
            deps.audit,
            request,
            {
              action: 'plan.update',
              targetType: 'plan',
              targetId: request.params.id,
              details: { fields: Object.keys(request.body) },
            },
            () => deps.plansAdmin.update(request.params.id, request.body),
          ),
        ),
        'Plan updated',
      ),
  )

  app.delete(
    '/admin/plans/:id',
    {
      schema: {
        tags,
        security,
        summary: 'Delete an unused plan, or archive one that was ever used',
        params: IdParams,
        response: { 200: envelope(z.object({ deleted: z.boolean(), archived: z.boolean() })) },
      },
    },
    async (request) => {
      const result = await audited(
        deps.audit,
        request,
        { action: 'plan.delete', targetType: 'plan', targetId: request.params.id },
        () => deps.plansAdmin.remove(request.params.id),
      )
      return ok(result, result.archived ? 'Plan archived (it has subscribers)' : 'Plan deleted')
    },
  )

  app.post(
    '/admin/plans/:id/toggle',
    {
      schema: {
        tags,
        security,
        summary: "Switch a plan's active flag",
        params: IdParams,
        response: { 200: envelope(AdminPlanSchema) },
      },
    },
    async (request) => {
      const plan = await audited(
        deps.audit,
        request,
        { action: 'plan.toggle', targetType: 'plan', targetId: request.params.id },
        () => deps.plansAdmin.toggle(request.params.id),
      )
      return ok(toAdminPlan(plan), plan.is_active ? 'Plan activated' : 'Plan deactivated')
    },
  )
}
