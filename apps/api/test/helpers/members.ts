import type { FastifyInstance, InjectOptions } from 'fastify'

let counter = 0

/** A valid registration, unique per call. */
export function newMember(overrides: Record<string, unknown> = {}) {
  counter += 1
  return {
    firstName: 'Ann',
    lastName: 'Punter',
    email: `ann.${Date.now()}.${counter}@example.com`,
    discordUsername: `ann_${counter}`,
    password: 'Winning$tr3ak',
    confirmPassword: 'Winning$tr3ak',
    tradingInterests: 'sports-betting',
    emailUpdates: true,
    agreeToTerms: true,
    ageConfirmation: true,
    ...overrides,
  }
}

export interface Session {
  user: { id: string; email: string; role: string; firstName: string }
  accessToken: string
  refreshToken: string
}

export async function register(
  app: FastifyInstance,
  overrides: Record<string, unknown> = {},
): Promise<Session & { password: string }> {
  const body = newMember(overrides)
  const response = await app.inject({ method: 'POST', url: '/discord/api/auth/register', payload: body })
  if (response.statusCode !== 201) throw new Error(`register failed: ${response.body}`)
  const { data } = response.json()
  return { user: data.user, ...data.tokens, password: body.password }
}

export async function login(
  app: FastifyInstance,
  email: string,
  password: string,
  rememberMe = false,
): Promise<Session> {
  const response = await app.inject({
    method: 'POST',
    url: '/discord/api/auth/login',
    payload: { email, password, rememberMe },
  })
  if (response.statusCode !== 200) throw new Error(`login failed: ${response.body}`)
  const { data } = response.json()
  return { user: data.user, ...data.tokens }
}

/** An API call with the bearer token. */
export function as(app: FastifyInstance, token: string, options: InjectOptions) {
  return app.inject({ ...options, headers: { ...options.headers, authorization: `Bearer ${token}` } })
}
