import {
  AdminPauseSchema,
  BillingSettingsInputSchema,
  BillingSettingsSchema,
  FreeDaysSchema,
  PauseResultSchema,
  text,
} from '@edgeclub/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import type { UserRow } from '../../db/types'
import { envelope, ok } from '../../lib/envelope'
import { bodyOf } from '../../plugins/audit'
import type { MembershipService } from './membership-service'

const IdParams = z.object({ id: text().min(1).max(64) })

/**
 * The owner's levers on members' plans (admins only, audited): pause a member, add free days before
 * their next charge, and the offer a member sees at cancel.
 */
export const membershipAdminRoutes: FastifyPluginAsyncZod<{
  membership: MembershipService
  accounts: { memberOrThrow(id: string): Promise<UserRow> }
  grant: (userId: string, input: { days: number }) => Promise<{ endDate: string }>
}> = async (app, deps) => {
  const tags = ['admin']
  const security = [{ bearerAuth: [] }]
  app.addHook('onRequest', app.requireAdmin)

  app.post(
    '/admin/users/:id/pause',
    {
      config: {
        audit: { action: 'user.pause', targetType: 'user', details: (r) => ({ periods: bodyOf(r).periods }) },
      },
      schema: {
        tags,
        security,
        summary: "Pause a member's renewing card plan for 1–3 billing periods",
        params: IdParams,
        body: AdminPauseSchema,
        response: { 200: envelope(PauseResultSchema) },
      },
    },
    async (request) => {
      const member = await deps.accounts.memberOrThrow(request.params.id)
      return ok(await deps.membership.pause(member, request.body.periods), 'Plan paused')
    },
  )

  app.post(
    '/admin/users/:id/free-days',
    {
      config: {
        audit: { action: 'user.free-days', targetType: 'user', details: (r) => ({ days: bodyOf(r).days }) },
      },
      schema: {
        tags,
        security,
        summary: 'Free days: a card plan is charged that much later; other members get complimentary access',
        params: IdParams,
        body: FreeDaysSchema,
        response: { 200: envelope(z.object({ endDate: z.string() })) },
      },
    },
    async (request) => {
      const member = await deps.accounts.memberOrThrow(request.params.id)
      const moved = await deps.membership.addFreeDays(member.id, request.body.days)
      const result = moved ?? (await deps.grant(member.id, { days: request.body.days }))
      return ok({ endDate: result.endDate }, `${request.body.days} free days added`)
    },
  )

  app.get(
    '/admin/billing-settings',
    {
      schema: {
        tags,
        security,
        summary: 'The offer a member sees before cancelling: a retention code, a pause, or both',
        response: { 200: envelope(BillingSettingsSchema) },
      },
    },
    async () => ok(await deps.membership.billingSettings()),
  )

  app.put(
    '/admin/billing-settings',
    {
      config: { audit: { action: 'billing.settings', targetType: 'settings', target: () => null } },
      schema: {
        tags,
        security,
        summary: 'Set the offer a member sees before cancelling',
        body: BillingSettingsInputSchema,
        response: { 200: envelope(BillingSettingsSchema) },
      },
    },
    async (request) => {
      await deps.membership.saveBillingSettings(request.body)
      return ok(await deps.membership.billingSettings(), 'Saved')
    },
  )
}
