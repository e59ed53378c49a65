import {
  AcceptRetentionSchema,
  CardSetupConfirmSchema,
  CardSetupSchema,
  CardUpdateResultSchema,
  ChangePlanPreviewSchema,
  ChangePlanResultSchema,
  ChangePlanSchema,
  PauseResultSchema,
  PauseSchema,
  RetentionOfferSchema,
  text,
  UnpauseResultSchema,
} from '@edgeclub/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { envelope, ok } from '../../lib/envelope'
import { authOf } from '../../plugins/auth'
import type { MembershipService } from './membership-service'

/** A member's renewing plan: change it, pause it, give it a new card, or stay for the owner's offer. */
export const membershipRoutes: FastifyPluginAsyncZod<{ membership: MembershipService }> = async (
  app,
  { membership },
) => {
  const tags = ['subscriptions']
  const security = [{ bearerAuth: [] }]
  app.addHook('onRequest', app.requireAuth)

  app.get(
    '/subscriptions/change-plan/preview',
    {
      schema: {
        tags,
        security,
        summary: 'What changing to a plan costs today (Stripe prorates an upgrade) and when it takes effect',
        querystring: z.object({ planId: text().uuid('Choose a plan') }),
        response: { 200: envelope(ChangePlanPreviewSchema) },
      },
    },
    async (request) => ok(await membership.previewChange(authOf(request).user, request.query.planId)),
  )

  app.post(
    '/subscriptions/change-plan',
    {
      schema: {
        tags,
        security,
        summary: 'Upgrade now (paid at once, or confirmed in the card form), or downgrade at the renewal',
        body: ChangePlanSchema,
        response: { 200: envelope(ChangePlanResultSchema) },
      },
    },
    async (request) => {
      const result = await membership.changePlan(
        authOf(request).user,
        request.body.planId,
        request.body.prorationDate,
      )
      return ok(result, result.scheduled ? 'Your plan switches at the renewal.' : undefined)
    },
  )

  app.delete(
    '/subscriptions/change-plan',
    {
      schema: {
        tags,
        security,
        summary: 'Undo a scheduled plan change',
        response: { 200: envelope(z.object({ undone: z.boolean() })) },
      },
    },
    async (request) => ok(await membership.undoChange(authOf(request).user), 'The plan change is undone.'),
  )

  app.post(
    '/subscriptions/pause',
    {
      schema: {
        tags,
        security,
        summary: 'Pause for 1–3 billing periods from the end of the paid period: no charge, no access',
        body: PauseSchema,
        response: { 200: envelope(PauseResultSchema) },
      },
    },
    async (request) =>
      ok(await membership.pause(authOf(request).user, request.body.periods), 'Your plan is paused.'),
  )

  app.post(
    '/subscriptions/unpause',
    {
      schema: {
        tags,
        security,
        summary: 'Resume a paused plan now',
        response: { 200: envelope(UnpauseResultSchema) },
      },
    },
    async (request) => ok(await membership.unpause(authOf(request).user)),
  )

  app.post(
    '/subscriptions/payment-method',
    {
      schema: {
        tags,
        security,
        summary: 'Start saving a new card for the renewals (a SetupIntent the card form confirms)',
        response: { 200: envelope(CardSetupSchema) },
      },
    },
    async (request) => ok(await membership.startCardUpdate(authOf(request).user)),
  )

  app.post(
    '/subscriptions/payment-method/confirm',
    {
      schema: {
        tags,
        security,
        summary: 'Use the saved card for the renewals, and pay an open renewal invoice with it at once',
        body: CardSetupConfirmSchema,
        response: { 200: envelope(CardUpdateResultSchema) },
      },
    },
    async (request) => {
      const result = await membership.finishCardUpdate(authOf(request).user, request.body.setupIntentId)
      return ok(result, result.message)
    },
  )

  app.get(
    '/subscriptions/retention',
    {
      schema: {
        tags,
        security,
        summary: "The owner's offer to a member about to cancel: a code, a pause, or nothing",
        response: { 200: envelope(RetentionOfferSchema) },
      },
    },
    async (request) => ok(await membership.retentionOffer(authOf(request).user)),
  )

  app.post(
    '/subscriptions/retention/accept',
    {
      schema: {
        tags,
        security,
        summary: 'Stay: the retention code on the plan, or a pause, instead of cancelling',
        body: AcceptRetentionSchema,
        response: { 200: envelope(z.object({ kept: z.boolean(), resumesAt: z.string().nullable() })) },
      },
    },
    async (request) =>
      ok(await membership.acceptRetention(authOf(request).user, request.body), 'Glad you stay!'),
  )
}
