import {
  AdminPaymentsQuerySchema,
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
  PublicUserSchema,
  ReconciliationIssuesSchema,
  ReconciliationRunSchema,
  RefundResultSchema,
  RefundSchema,
  RoleChangeSchema,
  text,
} from '@edgeclub/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import type { AuditLog } from '../../audit/audit-log'
import { envelope, ok } from '../../lib/envelope'
import { pagedListRoute } from '../../lib/paged-list-route'
import { bodyOf } from '../../plugins/audit'
import { authOf } from '../../plugins/auth'
import type { AccountsService } from '../auth/accounts-service'
import type { SubscriptionsService } from '../subscriptions/subscriptions-service'
import { MEMBER_COLUMNS, PAYMENT_COLUMNS, SUBSCRIPTION_COLUMNS } from './admin-csv'
import type { AdminService } from './admin-service'

const IdParams = z.object({ id: text().min(1).max(64) })

/**
 * The admin console's members, money and oversight routes: admins only (401 anonymous, 403 members).
 * Actions declare what they audit (`config.audit`, plugins/audit.ts). The plans editor's routes live
 * in the plans module, Discord moderation in community, signals in signals.
 */
export const adminRoutes: FastifyPluginAsyncZod<{
  admin: AdminService
  accounts: Pick<AccountsService, 'setRole' | 'setDisabled'>
  subscriptions: Pick<SubscriptionsService, 'list'>
  audit: Pick<AuditLog, 'list'>
}> = async (app, deps) => {
  const tags = ['admin']
  const security = [{ bearerAuth: [] }]
  app.addHook('onRequest', app.requireAdmin)

  // ---- members
  pagedListRoute(app, {
    url: '/admin/users',
    tags,
    summary: 'Members: search (email, name, Discord username, plan), sort, paginate',
    query: AdminUsersQuerySchema,
    page: AdminUserPageSchema,
    list: (query) => deps.admin.listUsers(query),
    csv: { name: 'members', columns: MEMBER_COLUMNS },
  })

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
      config: {
        audit: { action: 'user.grant', targetType: 'user', details: (r) => ({ days: bodyOf(r).days }) },
      },
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
        await deps.admin.grant(request.params.id, request.body),
        `Access granted for ${request.body.days} days`,
      ),
  )

  app.post(
    '/admin/users/:id/role',
    {
      config: {
        audit: { action: 'user.role', targetType: 'user', details: (r) => ({ role: bodyOf(r).role }) },
      },
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
        await deps.accounts.setRole(authOf(request).user, request.params.id, request.body.role),
        `Role changed to ${request.body.role}`,
      ),
  )

  app.post(
    '/admin/users/:id/disable',
    {
      config: {
        audit: {
          action: (r) => (bodyOf(r).disabled ? 'user.disable' : 'user.enable'),
          targetType: 'user',
        },
      },
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
        await deps.accounts.setDisabled(authOf(request).user, request.params.id, request.body.disabled),
        request.body.disabled ? 'Account disabled' : 'Account enabled',
      ),
  )

  // ---- subscriptions and payments
  pagedListRoute(app, {
    url: '/admin/subscriptions',
    tags,
    summary: 'Subscriptions: search, filter by status, sort, paginate',
    query: AdminSubscriptionsQuerySchema,
    page: AdminSubscriptionPageSchema,
    list: (query) => deps.subscriptions.list(query),
    csv: { name: 'subscriptions', columns: SUBSCRIPTION_COLUMNS },
  })

  pagedListRoute(app, {
    url: '/admin/payments',
    tags,
    summary: 'Payments: search, filter by provider and status, sort, paginate',
    query: AdminPaymentsQuerySchema,
    page: PaymentPageSchema,
    list: (query) => deps.admin.listPayments(query),
    csv: { name: 'payments', columns: PAYMENT_COLUMNS },
  })

  app.post(
    '/admin/payments/:id/refund',
    {
      config: {
        audit: {
          action: 'payment.refund',
          targetType: 'payment',
          details: (r) => ({ amount: bodyOf(r).amount ?? 'full' }),
        },
      },
      schema: {
        tags,
        security,
        summary: 'Refund a card payment in full or in part',
        params: IdParams,
        body: RefundSchema,
        response: { 200: envelope(RefundResultSchema) },
      },
    },
    async (request) => ok(await deps.admin.refund(request.params.id, request.body), 'Refund issued'),
  )

  // ---- oversight
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
      config: { audit: { action: 'reconciliation.run', targetType: 'ledger', target: () => null } },
      schema: {
        tags,
        security,
        summary:
          "Compare the processors' last 30 days with the ledger now, instead of waiting for the hourly sweep",
        response: { 200: envelope(ReconciliationRunSchema) },
      },
    },
    async () => {
      const result = await deps.admin.runReconciliation()
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
}
