import { ContactMessageSchema, ContactReceiptSchema, contactMessages } from '@edgeclub/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { envelope, ok } from '../../lib/envelope'
import type { ContactService } from './contact-service'

export const contactRoutes: FastifyPluginAsyncZod<{ contact: ContactService; perHour: number }> = async (
  app,
  { contact, perHour },
) => {
  app.post(
    '/contact',
    {
      config: { rateLimit: { max: perHour, timeWindow: '1 hour' } },
      schema: {
        tags: ['contact'],
        summary: 'Send a message to support',
        body: ContactMessageSchema,
        response: { 201: envelope(ContactReceiptSchema) },
      },
    },
    async (request, reply) => {
      const result = await contact.submit(request.body, request.ip)
      return reply.status(201).send(ok(result, contactMessages.sent))
    },
  )
}
