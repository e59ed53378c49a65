import Fastify from 'fastify'
import { serializerCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { validatorCompiler } from './validator-compiler'

describe('the query check', () => {
  const app = Fastify().withTypeProvider<ZodTypeProvider>()
  beforeAll(async () => {
    app.setValidatorCompiler(validatorCompiler)
    app.setSerializerCompiler(serializerCompiler)
    const since = z.object({ since: z.string().datetime().optional() })
    const paged = z.object({ page: z.coerce.number().int().min(1).default(1) })
    app.get('/optional', { schema: { querystring: since } }, async (request) => ({ query: request.query }))
    app.get('/defaults', { schema: { querystring: paged } }, async (request) => ({ query: request.query }))
    await app.ready()
  })
  afterAll(() => app.close())

  const get = async (url: string) => {
    const response = await app.inject({ method: 'GET', url })
    return { status: response.statusCode, body: response.json() as { query?: unknown } }
  }

  it('takes no query as it is, checks any query given, and still fills in defaults', async () => {
    expect(await get('/optional')).toEqual({ status: 200, body: { query: {} } })
    expect(await get('/optional?since=2026-11-27T10:00:00Z')).toEqual({
      status: 200,
      body: { query: { since: '2026-11-27T10:00:00Z' } },
    })
    expect((await get('/optional?since=yesterday')).status).toBe(400)
    // Unknown fields are dropped as before.
    expect(await get('/optional?other=1')).toEqual({ status: 200, body: { query: {} } })
    expect(await get('/defaults')).toEqual({ status: 200, body: { query: { page: 1 } } })
    expect((await get('/defaults?page=0')).status).toBe(400)
  })
})
