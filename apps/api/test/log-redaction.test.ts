import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { HOT_LOG_SAMPLE } from '../src/lib/hot-route'
import { register } from './helpers/members'
import { createTestApp, type TestApp } from './helpers/test-app'

const API = '/discord/api'

/** The app's log lines, parsed, that carry `msg`. */
type Line = Record<string, Record<string, unknown> | undefined> & {
  msg?: string
  reqId?: string
  sampled?: number
}

function linesWith(t: TestApp, msg: string): Line[] {
  return t.logLines<Line>().filter((line) => line.msg === msg)
}

describe('credentials never reach the logs', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp()
  })
  afterAll(async () => {
    await t.close()
  })

  it("censors a logged object's passwords, tokens and secrets, and an error's own, and changes nothing else", async () => {
    const body = { email: 'member@example.com', password: 'hunter2-hunter2', newPassword: 'n3w-pa55word' }
    const call = { accessToken: 'at-0123456789', refresh: 'kept', clientSecret: 'cs_live_abc' }
    const failure = Object.assign(new Error('the provider refused'), { token: 'tok-9876543210', status: 401 })
    t.app.log.info({ body, call, err: failure, count: 3 }, 'logged with credentials')
    // A request's logger (a child with the request id) censors the same.
    t.app.log.child({ reqId: 'req-test-1' }).warn({ body }, 'logged by a request')

    const [line] = linesWith(t, 'logged with credentials')
    expect(line?.body).toEqual({
      email: 'member@example.com',
      password: '[redacted]',
      newPassword: '[redacted]',
    })
    expect(line?.call).toEqual({ accessToken: '[redacted]', refresh: 'kept', clientSecret: '[redacted]' })
    expect(line?.err).toMatchObject({ message: 'the provider refused', token: '[redacted]', status: 401 })
    expect(line?.err?.stack).toContain('the provider refused')
    expect(line?.count).toBe(3)
    expect(linesWith(t, 'logged by a request')[0]?.body).toMatchObject({ password: '[redacted]' })
    for (const secret of [
      'hunter2-hunter2',
      'n3w-pa55word',
      'at-0123456789',
      'cs_live_abc',
      'tok-9876543210',
    ])
      expect(t.logs()).not.toContain(secret)
    // The caller's own objects are left as they were.
    expect(body.password).toBe('hunter2-hunter2')
    expect(failure.token).toBe('tok-9876543210')
  })

  it('logs each request with its method, path, id and status, a secret query value masked', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: `${API}/auth/reset-password/check?token=secret-reset-token-1&email=a@b.c`,
      headers: { authorization: 'Bearer not-logged-0123456789' },
    })
    const incoming = linesWith(t, 'incoming request').find((line) =>
      String(line.req?.url ?? '').startsWith(`${API}/auth/reset-password/check`),
    )
    expect(incoming?.req).toMatchObject({
      method: 'GET',
      url: expect.stringContaining('token=%5Bredacted%5D'),
    })
    const completed = linesWith(t, 'request completed').find((line) => line.reqId === incoming?.reqId)
    expect(completed?.res).toEqual({ statusCode: response.statusCode })
    expect(t.logs()).not.toContain('secret-reset-token-1')
    expect(t.logs()).not.toContain('not-logged-0123456789')
  })

  it("logs one of a hundred successful reads of a member's dashboard data, and every refused one with its id", async () => {
    const member = await register(t.app)
    const reads = ['/auth/profile', '/subscriptions/status', '/payments/history']
    const logged = () =>
      t
        .logLines<Line>()
        .filter((line) => reads.some((path) => String(line.req?.url).startsWith(`${API}${path}`)))
    const before = logged().length
    // The access read twice as often as the others, as a dashboard that polls it would.
    const round = ['/subscriptions/status', '/auth/profile', '/subscriptions/status', '/payments/history']
    for (let i = 0; i < HOT_LOG_SAMPLE; i++)
      for (const path of round) {
        const response = await t.app.inject({
          method: 'GET',
          url: `${API}${path}`,
          headers: { authorization: `Bearer ${member.accessToken}` },
        })
        expect(response.statusCode).toBe(200)
      }
    const successes = logged().slice(before)
    // One sampled line per hundred answers of each read, standing for its hundred, and no line per
    // request: each route keeps its own count (with one count for all, the four lines of these 400
    // answers all fell on whichever read came at the same place in the round).
    const linesOf = (path: string) =>
      successes.filter((line) => String(line.req?.url).startsWith(`${API}${path}`))
    expect(linesOf('/subscriptions/status')).toHaveLength(2)
    expect(linesOf('/auth/profile')).toHaveLength(1)
    expect(linesOf('/payments/history')).toHaveLength(1)
    expect(successes).toHaveLength(4)
    expect(
      successes.every((line) => line.msg === 'request completed' && line.sampled === HOT_LOG_SAMPLE),
    ).toBe(true)

    const refused = await t.app.inject({
      method: 'GET',
      url: `${API}/subscriptions/status`,
      headers: { authorization: 'Bearer not-a-token-0123456789', 'x-request-id': 'refused-read-0001' },
    })
    expect(refused.statusCode).toBe(401)
    const line = logged().find((entry) => entry.reqId === 'refused-read-0001')
    expect(line?.res).toEqual({ statusCode: 401 })
    expect(line?.req).toMatchObject({ method: 'GET', url: `${API}/subscriptions/status` })
    expect(t.logs()).not.toContain('not-a-token-0123456789')
  })
})
