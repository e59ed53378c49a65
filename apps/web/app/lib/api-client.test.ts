import {
  AccessStatusSchema,
  type AuthSession,
  type PaymentIntent,
  type PaymentView,
  type PublicUser,
} from '@edgeclub/shared'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { forgotPassword, login, logout, register, resetPassword } from '../features/auth/auth-api'
import { apiRequest, refreshAccessToken } from './api-client'
import { createPaymentIntent } from './checkout-api'
import { contract } from './contract'
import { ContractDriftError } from './contract-check'
import { fetchPaymentHistory } from './payment-history-api'
import { fetchActivePlans } from './plans-api'
import { LOADING_AREAS, session } from './session-store'
import { fetchSubscriptionStatus } from './subscription-status-api'

/**
 * The browser's side of the API: which calls carry the token, where they go, what a failure
 * turns into. The network is replaced at `fetch`, the only boundary the client has.
 */

interface Sent {
  url: string
  method: string
  headers: Record<string, string>
  body: string | undefined
}

let sent: Sent[]
let answer: (request: Sent) => Response | Promise<Response>

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })
}

// Answers as the API gives them: the client checks each one against its shared schema.
const ann: PublicUser = {
  id: 'u1',
  _id: 'u1',
  email: 'ann@example.com',
  firstName: 'Ann',
  lastName: 'Lee',
  discordUsername: 'ann',
  role: 'member',
  tradingInterests: null,
  emailUpdates: false,
  createdAt: '2026-01-05T10:00:00.000Z',
}
const intent: PaymentIntent = {
  clientSecret: 'pi_1_secret_x',
  paymentIntentId: 'pi_1',
  amount: 29.99,
  currency: 'USD',
  paymentId: 'pay-1',
  plan: null,
  setupIntentId: null,
  trialEndsAt: null,
  promo: null,
}
const payment: PaymentView = {
  _id: 'p1',
  id: 'p1',
  planId: { _id: 'plan-1', id: 'plan-1', name: 'Monthly' },
  amount: 29.99,
  amountRefunded: 0,
  currency: 'USD',
  status: 'completed',
  provider: 'stripe',
  kind: 'subscription',
  message: null,
  failureMessage: null,
  createdAt: '2026-01-05T10:00:00.000Z',
  completedAt: '2026-01-05T10:01:00.000Z',
  stripeClientSecret: null,
  stripePaymentIntentId: 'pi_1',
  checkoutUrl: null,
  expiresAt: null,
}

beforeEach(() => {
  sent = []
  answer = () => json(200, { success: true, data: {} })
  const store = new Map<string, string>()
  vi.stubGlobal('localStorage', {
    getItem: (key: string) => store.get(key) ?? null,
    setItem: (key: string, value: string) => store.set(key, value),
    removeItem: (key: string) => store.delete(key),
  })
  vi.stubGlobal('fetch', async (url: string, init: RequestInit = {}) => {
    const request: Sent = {
      url,
      method: init.method ?? 'GET',
      headers: { ...(init.headers as Record<string, string>) },
      body: init.body as string | undefined,
    }
    sent.push(request)
    return answer(request)
  })
  session.clear()
  session.setError(null)
  session.setTokens({ accessToken: 'access-1', refreshToken: 'refresh-1' })
})

afterEach(() => {
  vi.unstubAllGlobals()
  vi.unstubAllEnvs()
  vi.restoreAllMocks()
})

describe('the API client', () => {
  it('API-02 API-04 API-05 sends the public calls under /discord/api without a token, with JSON bodies', async () => {
    const signedIn: AuthSession = {
      user: ann,
      tokens: { accessToken: 'access-9', refreshToken: 'refresh-9' },
    }
    answer = (request) => {
      if (request.url.endsWith('/refresh-token'))
        return json(200, { success: true, data: { accessToken: 'access-2', refreshToken: 'refresh-2' } })
      if (/\/auth\/(register|login)$/.test(request.url)) return json(200, { success: true, data: signedIn })
      return json(200, { success: true, data: request.url.includes('plans') ? [] : {} })
    }

    await register({
      email: 'ann@example.com',
      password: 'Secret123',
      confirmPassword: 'Secret123',
      firstName: 'Ann',
      lastName: 'Lee',
      discordUsername: 'ann',
      tradingInterests: '',
      emailUpdates: false,
      agreeToTerms: true,
      ageConfirmation: true,
    })
    session.setTokens({ accessToken: 'access-1', refreshToken: 'refresh-1' })
    await login('ann@example.com', 'Secret123', false)
    await forgotPassword('ann@example.com')
    await resetPassword('a'.repeat(64), 'Secret456')
    await fetchActivePlans()
    await apiRequest('/subscriptions/plans', { auth: false })
    await refreshAccessToken()

    expect(sent.map((request) => `${request.method} ${request.url}`)).toEqual([
      'POST /discord/api/auth/register',
      'POST /discord/api/auth/login',
      'POST /discord/api/auth/forgot-password',
      'POST /discord/api/auth/reset-password',
      'GET /discord/api/admin/plans/public/active',
      'GET /discord/api/subscriptions/plans',
      'POST /discord/api/auth/refresh-token',
    ])
    for (const request of sent) {
      expect(request.headers.authorization, request.url).toBeUndefined()
      if (request.method === 'POST') {
        expect(request.headers['content-type']).toBe('application/json')
        expect(() => JSON.parse(String(request.body))).not.toThrow()
      }
    }
    // The confirmation field stays in the browser; the rest of the form is what the server gets.
    expect(JSON.parse(String(sent[0]?.body))).not.toHaveProperty('confirmPassword')
    expect(JSON.parse(String(sent[1]?.body))).toEqual({
      email: 'ann@example.com',
      password: 'Secret123',
      rememberMe: false,
    })
  })

  it('API-03 API-04 sends the access token as a bearer header on every other call', async () => {
    answer = (request) =>
      json(200, {
        success: true,
        data: request.url.endsWith('/status')
          ? {
              hasAccess: false,
              activeSubscription: null,
              status: null,
              trialEndsAt: null,
              resumesAt: null,
              scheduledChange: null,
            }
          : request.url.endsWith('/create-intent')
            ? intent
            : {},
      })

    await fetchSubscriptionStatus()
    await createPaymentIntent('plan-1')
    await apiRequest('/auth/profile')
    await logout()

    expect(sent.map((request) => `${request.method} ${request.url}`)).toEqual([
      'GET /discord/api/subscriptions/status',
      'POST /discord/api/payments/create-intent',
      'GET /discord/api/auth/profile',
      'POST /discord/api/auth/logout',
    ])
    for (const request of sent) expect(request.headers.authorization).toBe('Bearer access-1')
    expect(JSON.parse(String(sent[1]?.body))).toEqual({ planId: 'plan-1', currency: 'USD' })
  })

  it("API-30 a refused call's error is the server's message, else 'API request failed'", async () => {
    answer = () =>
      json(409, { success: false, error: 'CONFLICT', message: 'An account with this email already exists' })
    const taken = await apiRequest('/auth/register', { method: 'POST', body: {}, auth: false })
    expect(taken).toMatchObject({
      success: false,
      error: 'An account with this email already exists',
      code: 'CONFLICT',
      status: 409,
    })

    answer = () => new Response('<html>Bad gateway</html>', { status: 502 })
    const broken = await apiRequest('/subscriptions/status')
    expect(broken).toMatchObject({ success: false, error: 'API request failed', status: 502 })
  })

  it("API-31 API-32 API-33 an exception becomes an API_ERROR stored as the current error, else 'Unknown error occurred'", async () => {
    answer = () => {
      throw new TypeError('Failed to fetch')
    }
    const offline = await apiRequest('/subscriptions/status')
    expect(offline).toEqual(expect.objectContaining({ success: false, error: 'Failed to fetch' }))
    expect(session.getState().error).toEqual({
      code: 'API_ERROR',
      message: 'Failed to fetch',
      serverCode: undefined,
    })

    answer = () => {
      throw new Error('')
    }
    const silent = await apiRequest('/subscriptions/status')
    expect(silent).toEqual(expect.objectContaining({ success: false, error: 'Unknown error occurred' }))
    expect(session.getState().error).toMatchObject({ code: 'API_ERROR', message: 'Unknown error occurred' })
  })

  it("HIST-01 API-18 the payment history asks for 10 and throws 'HTTP error! status: {code}' when refused", async () => {
    answer = () =>
      json(200, {
        success: true,
        data: { items: [payment], pagination: { page: 1, limit: 10, total: 1, pages: 1 } },
      })
    await expect(fetchPaymentHistory()).resolves.toEqual([payment])
    const asked = new URL(String(sent[0]?.url), 'http://x')
    expect(asked.pathname).toBe('/discord/api/payments/history')
    expect(asked.searchParams.get('limit')).toBe('10')
    expect(sent[0]?.headers.authorization).toBe('Bearer access-1')

    answer = () => json(503, { success: false, message: 'down' })
    await expect(fetchPaymentHistory()).rejects.toThrow(/^HTTP error! status: 503$/)
  })
})

describe('answers that drift from their schema', () => {
  const drifted = {
    hasAccess: 'yes',
    activeSubscription: null,
    status: null,
    trialEndsAt: null,
    resumesAt: null,
    scheduledChange: null,
  }
  const driftReport = expect.stringMatching(
    /^API contract drift: GET \/subscriptions\/status answered data its schema rejects: hasAccess: .*expected boolean/,
  )

  it('in a development or test build: logs the request and the issues, and throws instead of answering', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
    answer = () => json(200, { success: true, data: drifted })

    const call = apiRequest('/subscriptions/status', { schema: AccessStatusSchema })

    await expect(call).rejects.toBeInstanceOf(ContractDriftError)
    await expect(call).rejects.toMatchObject({
      request: 'GET /subscriptions/status',
      issues: [expect.objectContaining({ path: ['hasAccess'] })],
    })
    expect(logged).toHaveBeenCalledTimes(1)
    expect(logged).toHaveBeenCalledWith(driftReport)
    // A bug on one side is not the server refusing the member: no error shows as the session's.
    expect(session.getState().error).toBeNull()
  })

  it('in a production build: logs the request and the issues, and hands the screen the data as received', async () => {
    vi.stubEnv('PROD', true)
    vi.stubEnv('DEV', false)
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
    answer = () => json(200, { success: true, data: drifted, message: 'ok' })

    const result = await apiRequest('/subscriptions/status', { schema: AccessStatusSchema })

    expect(result).toEqual({ success: true, data: drifted, message: 'ok', status: 200 })
    expect(logged).toHaveBeenCalledTimes(1)
    expect(logged).toHaveBeenCalledWith(driftReport)
    expect(session.getState().error).toBeNull()
  })

  it('a matching answer logs nothing and comes back as the schema reads it, in either build', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
    const status = {
      hasAccess: false,
      activeSubscription: null,
      status: null,
      trialEndsAt: null,
      resumesAt: null,
      scheduledChange: null,
    }
    // A field the schema does not name is no drift; the screen never sees it.
    answer = () => json(200, { success: true, data: { ...status, addedLater: 1 } })

    await expect(apiRequest('/subscriptions/status', { schema: AccessStatusSchema })).resolves.toMatchObject({
      success: true,
      data: status,
    })
    vi.stubEnv('PROD', true)
    vi.stubEnv('DEV', false)
    const production = await apiRequest('/subscriptions/status', { schema: AccessStatusSchema })
    expect(production.data).toEqual(status)
    expect(logged).not.toHaveBeenCalled()
  })

  it('by name, in a development or test build: the schema is loaded and the drift thrown before the screen gets anything', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
    answer = () => json(200, { success: true, data: drifted })

    const call = apiRequest('/subscriptions/status', { schema: contract('AccessStatusSchema') })

    await expect(call).rejects.toBeInstanceOf(ContractDriftError)
    expect(logged).toHaveBeenCalledWith(driftReport)
  })

  it('by name, in a production build: the screen gets the data at once, and a worker checks it once the first screen is up', async () => {
    vi.stubEnv('PROD', true)
    vi.stubEnv('DEV', false)
    // The browser's Worker, in this process: it runs the worker's own check on what it is sent.
    const started: string[] = []
    const { answerCheck } = await import('./contract-answers')
    class InProcessWorker extends EventTarget {
      constructor(url: URL) {
        super()
        started.push(url.pathname)
      }
      postMessage(message: Parameters<typeof answerCheck>[0]) {
        const answer = answerCheck(structuredClone(message))
        queueMicrotask(() => this.dispatchEvent(new MessageEvent('message', { data: answer })))
      }
    }
    vi.stubGlobal('Worker', InProcessWorker)
    vi.useFakeTimers({ toFake: ['setTimeout', 'performance'] })
    try {
      const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
      answer = () => json(200, { success: true, data: drifted })

      const result = await apiRequest('/subscriptions/status', { schema: contract('AccessStatusSchema') })

      expect(result.data).toEqual(drifted)
      // The worker (with zod and the schemas) is not even started before the page has been up for two seconds.
      await vi.advanceTimersByTimeAsync(1_900)
      expect(started).toEqual([])
      expect(logged).not.toHaveBeenCalled()
      await vi.advanceTimersByTimeAsync(200)
      await vi.waitFor(() => expect(logged).toHaveBeenCalledWith(driftReport))
      expect(logged).toHaveBeenCalledTimes(1)
      expect(started).toEqual([expect.stringMatching(/contract-worker\.ts$/)])
    } finally {
      vi.useRealTimers()
      vi.unstubAllGlobals()
    }
  })

  it('a refused call is still a failure with the server message, never a drift', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
    answer = () => json(403, { success: false, error: 'FORBIDDEN', message: 'Admins only' })

    const result = await apiRequest('/subscriptions/status', { schema: AccessStatusSchema })

    expect(result).toMatchObject({ success: false, error: 'Admins only', code: 'FORBIDDEN', status: 403 })
    expect(logged).not.toHaveBeenCalled()
  })
})

describe('loading flags', () => {
  it('SESSION-12 keeps one flag per area, and the auth flag is up only while a sign-in runs', async () => {
    expect([...LOADING_AREAS]).toEqual([
      'auth',
      'user',
      'bets',
      'signals',
      'portfolio',
      'dashboard',
      'news',
      'payment',
      'admin',
      'subscription',
      'tips',
    ])
    session.setLoading('payment', true)
    expect(session.getState().loading).toMatchObject({ payment: true, auth: false, tips: false })

    let release: (response: Response) => void = () => {}
    answer = () => new Promise<Response>((resolve) => (release = resolve))
    const signingIn = login('ann@example.com', 'Secret123', true)
    await vi.waitFor(() => expect(sent).toHaveLength(1))
    expect(session.getState().loading).toMatchObject({ auth: true, payment: true })
    release(json(401, { success: false, message: 'Invalid email or password' }))
    await expect(signingIn).resolves.toMatchObject({ success: false, error: 'Invalid email or password' })
    expect(session.getState().loading).toMatchObject({ auth: false, payment: true })
    session.setLoading('payment', false)
  })
})
