import { createHmac } from 'node:crypto'
import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CryptoHarness, createCryptoHarness } from './helpers/crypto'
import { login, register } from './helpers/members'

const API = '/discord/api'
const ADMIN = { email: 'sentinel@edgeclub.test', password: 'Sentinel$Watch-77' }
const CLIENT = '192.0.2.77'

interface LogLine {
  level: number
  msg: string
  reqId?: string
  event?: string
  ip?: string
  userId?: string | null
  req?: { ip?: string; url?: string }
  [field: string]: unknown
}

/**
 * Security events are log lines an operator can search: one per event, with the request id, the
 * client's address and the user where known, and never a secret.
 */
describe('security events in the log', () => {
  let h: CryptoHarness
  /** Everything that must never appear in a log line. */
  const secrets = new Set<string>()
  beforeAll(async () => {
    h = await createCryptoHarness({ env: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password } })
    secrets.add(ADMIN.password)
  })
  afterAll(() => h.close())

  const call = (method: 'GET' | 'POST', url: string, payload?: object | string, headers = {}) =>
    h.t.app.inject({
      method,
      url: `${API}${url}`,
      remoteAddress: CLIENT,
      headers,
      ...(payload === undefined ? {} : { payload }),
    })
  const lines = (): LogLine[] => h.t.logLines<LogLine>()
  /** The one line of `event` written while answering `response`. */
  const eventOf = (response: LightMyRequestResponse, event: string): LogLine => {
    const requestId = String(response.headers['x-request-id'])
    const found = lines().filter((line) => line.event === event && line.reqId === requestId)
    expect(found, `${event} for request ${requestId}`).toHaveLength(1)
    const line = found[0]!
    expect(line.ip).toBe(CLIENT)
    return line
  }
  const member = async () => {
    const session = await register(h.t.app)
    secrets.add(session.password)
    secrets.add(session.user.email)
    secrets.add(session.accessToken)
    secrets.add(session.refreshToken)
    return session
  }

  it('signing in: success, failure (known and unknown email) and the lockout', async () => {
    const ann = await member()
    const ok = await call('POST', '/auth/login', { email: ann.user.email, password: ann.password })
    expect(ok.statusCode).toBe(200)
    secrets.add(ok.json().data.tokens.accessToken)
    secrets.add(ok.json().data.tokens.refreshToken)
    expect(eventOf(ok, 'auth.login.succeeded')).toMatchObject({ userId: ann.user.id, level: 30 })

    const wrong = await call('POST', '/auth/login', { email: ann.user.email, password: 'Wrong$pass1' })
    secrets.add('Wrong$pass1')
    expect(eventOf(wrong, 'auth.login.failed')).toMatchObject({
      userId: ann.user.id,
      reason: 'wrong-password',
      level: 40,
    })

    const ghost = 'ghost.punter@example.org'
    secrets.add(ghost)
    const unknown = await call('POST', '/auth/login', { email: ghost, password: 'Wrong$pass1' })
    const unknownLine = eventOf(unknown, 'auth.login.failed')
    expect(unknownLine).toMatchObject({ reason: 'unknown-email', emailDomain: 'example.org' })
    expect(unknownLine.emailHash).toMatch(/^[0-9a-f]{16}$/)
    expect(unknownLine.userId).toBeUndefined()
    // The same address always gives the same hash, so repeated attempts can be told apart from others.
    const again = await call('POST', '/auth/login', { email: ghost.toUpperCase(), password: 'Wrong$pass1' })
    expect(eventOf(again, 'auth.login.failed').emailHash).toBe(unknownLine.emailHash)

    const bob = await member()
    const attempts: LightMyRequestResponse[] = []
    for (let i = 0; i < 11; i++)
      attempts.push(await call('POST', '/auth/login', { email: bob.user.email, password: 'Wrong$pass1' }))
    expect(attempts.map((response) => response.statusCode)).toEqual([...Array(10).fill(401), 429])
    expect(eventOf(attempts[9]!, 'auth.lockout')).toMatchObject({ userId: bob.user.id, failures: 10 })
    expect(
      lines().filter((line) => line.event === 'auth.lockout' && line.userId === bob.user.id),
    ).toHaveLength(1)
    expect(eventOf(attempts[10]!, 'auth.login.failed')).toMatchObject({
      userId: bob.user.id,
      reason: 'locked',
    })
  })

  it('a refresh token used twice: its session is revoked, and the event names the user', async () => {
    const ann = await member()
    const first = await call('POST', '/auth/refresh-token', { refreshToken: ann.refreshToken })
    expect(first.statusCode).toBe(200)
    secrets.add(first.json().data.accessToken)
    secrets.add(first.json().data.refreshToken)
    const reuse = await call('POST', '/auth/refresh-token', { refreshToken: ann.refreshToken })
    expect(reuse.statusCode).toBe(401)
    expect(eventOf(reuse, 'auth.refresh.reused')).toMatchObject({ userId: ann.user.id, level: 40 })
  })

  it('a password reset: the request (address by domain and hash only) and its completion', async () => {
    const ann = await member()
    const started = Date.now()
    const requested = await call('POST', '/auth/forgot-password', { email: ann.user.email })
    const line = eventOf(requested, 'auth.reset.requested')
    expect(line).toMatchObject({
      emailDomain: 'example.com',
      emailHash: expect.stringMatching(/^[0-9a-f]{16}$/),
    })
    const mail = await h.smtp.waitFor(
      (m) =>
        JSON.stringify(m.to).includes(ann.user.email) &&
        /Reset your/.test(m.subject ?? '') &&
        (m.date?.getTime() ?? 0) >= started - 1000,
    )
    const link = /https?:\/\/\S+reset-password\?token=([A-Za-z0-9_-]+)/.exec(mail.text ?? '')
    expect(link).not.toBeNull()
    secrets.add(link![0])
    secrets.add(link![1]!)
    secrets.add('Brand$New2026')
    const done = await call('POST', '/auth/reset-password', { token: link![1], password: 'Brand$New2026' })
    expect(done.statusCode).toBe(200)
    expect(eventOf(done, 'auth.reset.completed')).toMatchObject({ userId: ann.user.id })
  })

  it('a 403, and every admin action with who did what to whom and how it ended', async () => {
    const ann = await member()
    const forbidden = await call('GET', '/admin/users', undefined, {
      authorization: `Bearer ${ann.accessToken}`,
    })
    expect(forbidden.statusCode).toBe(403)
    expect(eventOf(forbidden, 'access.forbidden')).toMatchObject({
      userId: ann.user.id,
      method: 'GET',
      route: `${API}/admin/users`,
      level: 40,
    })

    const admin = await login(h.t.app, ADMIN.email, ADMIN.password)
    secrets.add(admin.accessToken)
    secrets.add(admin.refreshToken)
    const asAdmin = { authorization: `Bearer ${admin.accessToken}` }
    const grant = await call('POST', `/admin/users/${ann.user.id}/grant`, { days: 7 }, asAdmin)
    expect(grant.statusCode).toBe(200)
    expect(eventOf(grant, 'admin.action')).toMatchObject({
      userId: admin.user.id,
      action: 'user.grant',
      targetType: 'user',
      targetId: ann.user.id,
      outcome: 'success',
    })
    const self = await call('POST', `/admin/users/${admin.user.id}/disable`, { disabled: true }, asAdmin)
    expect(self.statusCode).toBe(400)
    expect(eventOf(self, 'admin.action')).toMatchObject({
      userId: admin.user.id,
      action: 'user.disable',
      targetId: admin.user.id,
      outcome: 'failure',
    })
  })

  it('a webhook with a bad or missing signature, for Stripe and for BTCPay', async () => {
    const body = JSON.stringify({ id: 'evt_forged_log', object: 'event', type: 'invoice.paid', data: {} })
    const forged = await call('POST', '/webhooks/stripe', body, {
      'content-type': 'application/json',
      'stripe-signature': 't=1,v1=deadbeef',
    })
    expect(forged.statusCode).toBe(400)
    expect(eventOf(forged, 'webhook.signature.invalid')).toMatchObject({
      provider: 'stripe',
      reason: 'mismatch',
    })
    const unsigned = await call('POST', '/webhooks/stripe', body, { 'content-type': 'application/json' })
    expect(eventOf(unsigned, 'webhook.signature.invalid')).toMatchObject({
      provider: 'stripe',
      reason: 'missing',
    })

    const btcpayBody = JSON.stringify({ deliveryId: 'forged-1', type: 'InvoiceSettled', invoiceId: 'inv_x' })
    const wrongKey = `sha256=${createHmac('sha256', 'not-the-secret').update(btcpayBody).digest('hex')}`
    const btcpay = await call('POST', '/webhooks/btcpay', btcpayBody, {
      'content-type': 'application/json',
      'btcpay-sig': wrongKey,
    })
    expect(btcpay.statusCode).toBe(400)
    expect(eventOf(btcpay, 'webhook.signature.invalid')).toMatchObject({
      provider: 'btcpay',
      reason: 'mismatch',
    })
    secrets.add(h.emulator.stripe.webhookSecret)
    secrets.add(h.emulator.btcpay.webhookSecret)
  })

  it('request log lines carry the client address', () => {
    const requests = lines().filter(
      (line) => line.msg === 'incoming request' && line.req?.url?.startsWith(API),
    )
    expect(requests.length).toBeGreaterThan(10)
    expect(requests.filter((line) => line.req?.ip === CLIENT).length).toBeGreaterThan(10)
  })

  it('no log line holds a password, a token, a reset link or a whole email address', () => {
    const log = h.t.logs()
    expect(secrets.size).toBeGreaterThan(15)
    for (const secret of secrets) expect(log, 'a secret in the log').not.toContain(secret)
  })
})
