import { API_BASE } from '@edgeclub/shared'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { jsonSchemaTransform } from 'fastify-type-provider-zod'

/** The API's documentation pages (Swagger UI): pages, with a page's security headers (plugins/security.ts). */
export const API_DOCS = `${API_BASE}/docs`

/** OpenAPI generated from the same zod schemas that validate the routes. */
export default fp(
  async (app: FastifyInstance) => {
    await app.register(swagger, {
      openapi: {
        info: {
          title: 'EdgeClub API',
          version: '1.0.0',
          description: 'Every response is the envelope { success, data?, message?, error?, errors? }.',
        },
        components: {
          securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
        },
      },
      transform: jsonSchemaTransform,
      // Only the API belongs in the document, not the web pages.
      hideUntagged: true,
    })
    await app.register(swaggerUi, { routePrefix: API_DOCS, staticCSP: true })
    app.get(`${API_BASE}/openapi.json`, { schema: { hide: true } }, async () => app.swagger())
  },
  { name: 'openapi' },
)
