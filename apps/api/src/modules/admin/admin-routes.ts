import {
  AdminPaymentsQuerySchema,
  AdminPlanPageSchema,
  AdminPlanSchema,
  AdminPlansQuerySchema,
  AdminSubscriptionPageSchema,
  AdminSubscriptionsQuerySchema,
  AdminUserDetailSchema,
  AdminUserPageSchema,
  AdminUsersQuerySchema,
  AnalyticsSchema,
  AuditPageSchema,
  DisableResultSchema,
  DisableSchema,
  GrantAccessSchema,
  GrantResultSchema,
  PageQuerySchema,
  PaymentPageSchema,
  PlanInputSchema,
  PlanRemovalSchema,
  PlanUpdateSchema,
  PublicUserSchema,
  ReconciliationIssuesSchema,
  ReconciliationRunSchema,
  RefundResultSchema,
  RefundSchema,
  RoleChangeSchema,
  text,
} from '@edgeclub/shared'
import type { FastifyReply } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { toCsv } from '../../lib/csv'
import { envelope, ok } from '../../lib/envelope'
import { authOf } from '../../plugins/auth'
import { type PlansAdminService, toAdminPlan } from '../plans/plans-admin-service'
import type { SubscriptionsService } from '../subscriptions/subscriptions-service'
import type { AdminService } from './admin-service'
import type { Audit } from './audit'
import { audited } from './audited'

const IdParams = z.object({ id: text().min(1).max(64) })
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
  subscriptions: SubscriptionsService
}> = async (app, deps) => {
  const tags = ['admin']
  const security = [{ bearerAuth: [] }]
  app.addHook('onRequest', app.requireAdmin)

  // ---- members
  app.get(
    '/admin/users',
    {
      schema: {
        tags,
        security,
        summary: 'Members: search (email, name, Discord username, plan), sort, paginate; ?format=csv exports',
        querystring: AdminUsersQuerySchema.extend(ExportQuery.shape),
        response: { 200: envelope(AdminUserPageSchema) },
      },
    },
    async (request, reply) => {
      const { format, ...query } = request.query
      if (format === 'csv') {
        const { items } = await deps.admin.listUsers({ ...query, page: 1, limit: EXPORT_LIMIT })
        return sendCsv(
          reply,
          'members',
          toCsv(items, [
            { header: 'id', value: (u) => u.id },
            { header: 'email', value: (u) => u.email },
            { header: 'first_name', value: (u) => u.firstName },
            { header: 'last_name', value: (u) => u.lastName },
            { header: 'discord_username', value: (u) => u.discordUsername },
            { header: 'discord_verified', value: (u) => u.discord.verified },
            { header: 'role', value: (u) => u.role },
            { header: 'has_access', value: (u) => u.hasAccess },
            { header: 'disabled', value: (u) => u.disabled },
            { header: 'created_at', value: (u) => u.createdAt },
          ]),
        )
      }
      return ok(await deps.admin.listUsers(query))
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
        response: { 200: envelope(AdminUserDetailSchema) },
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
        response: { 200: envelope(GrantResultSchema) },
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
        summary: 'Change a role: member, analyst (publishes and settles signals only) or admin',
        params: IdParams,
        body: RoleChangeSchema,
        response: { 200: envelope(PublicUserSchema) },
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
        response: { 200: envelope(DisableResultSchema) },
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
        response: { 200: envelope(AdminSubscriptionPageSchema) },
      },
    },
    async (request, reply) => {
      const { format, ...query } = request.query
      const page = await deps.subscriptions.list(
        format === 'csv' ? { ...query, page: 1, limit: EXPORT_LIMIT } : query,
      )
      const { items } = page
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
      return ok(page)
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
        response: { 200: envelope(PaymentPageSchema) },
      },
    },
    async (request, reply) => {
      const { format, ...query } = request.query
      const page = await deps.admin.listPayments(
        format === 'csv' ? { ...query, page: 1, limit: EXPORT_LIMIT } : query,
      )
      const { items } = page
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
      return ok(page)
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
        response: { 200: envelope(RefundResultSchema) },
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
    {
      schema: {
        tags,
        security,
        summary: 'Members, MRR, revenue per month, churn, plan mix and tips',
        response: { 200: envelope(AnalyticsSchema) },
      },
    },
    async () => ok(await deps.admin.analytics()),
  )

  app.get(
    '/admin/reconciliation',
    {
      schema: {
        tags,
        security,
        summary: 'Payments a processor holds that the ledger could not match (from the reconciliation sweep)',
        response: { 200: envelope(ReconciliationIssuesSchema) },
      },
    },
    async () => ok(await deps.admin.reconciliationIssues()),
  )

  app.post(
    '/admin/reconciliation/run',
    {
      schema: {
        tags,
        security,
        summary:
          "Compare the processors' last 30 days with the ledger now, instead of waiting for the hourly sweep",
        response: { 200: envelope(ReconciliationRunSchema) },
      },
    },
    async (request) => {
      const result = await audited(
        deps.audit,
        request,
        { action: 'reconciliation.run', targetType: 'ledger', targetId: null },
        () => deps.admin.runReconciliation(),
      )
      return ok(
        result,
        result.repaired + result.unmatched === 0
          ? 'The ledger matches what the processors hold'
          : `Repaired ${result.repaired}; ${result.unmatched} to check`,
      )
    },
  )

  app.get(
    '/admin/audit',
    {
      schema: {
        tags,
        security,
        summary: 'The audit log, newest first',
        querystring: PageQuerySchema.extend({ targetId: text().max(64).optional() }),
        response: { 200: envelope(AuditPageSchema) },
      },
    },
    async (request) => ok(await deps.audit.list(request.query)),
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
        response: { 200: envelope(AdminPlanPageSchema) },
      },
    },
    async (request) => ok(await deps.plansAdmin.list(request.query)),
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
        response: { 200: envelope(PlanRemovalSchema) },
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
