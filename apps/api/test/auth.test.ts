import { SignJWT } from 'jose'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hashPassword } from '../src/modules/auth/passwords'
import { as, login, newMember, register } from './helpers/members'
import { type SmtpSink, startSmtpSink } from './helpers/smtp-sink'
import { createTestApp, type TestApp, testClock } from './helpers/test-app'

const API = '/discord/api'
const MINUTE = 60_000

describe('accounts and sessions', () => {
  const clock = testClock()
  let smtp: SmtpSink
  let t: TestApp
  beforeAll(async () => {
    smtp = await startSmtpSink()
    t = await createTestApp({
      clock,
      env: {
        SMTP_URL: smtp.url,
        APP_ORIGIN: 'https://club.example',
        ADMIN_EMAIL: 'Boss@Example.com',
        ADMIN_PASSWORD: 'Admin$ecret1',
      },
    })
  })
  afterAll(async () => {
    await t.close()
    await smtp.close()
  })

  const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url: `${API}${url}`, payload: payload as object, headers })

  describe('registration', () => {
    it('API-06 API-07 SESSION-01 SESSION-03 registers with the five SPEC fields and answers data.user and data.tokens', async () => {
      const { firstName, lastName, email, discordUsername, password } = newMember()
      const response = await post('/auth/register', { firstName, lastName, email, discordUsername, password })
      expect(response.statusCode).toBe(201)
      const body = response.json()
      expect(body.success).toBe(true)
      expect(body.data.user).toMatchObject({ firstName, lastName, email, discordUsername, role: 'member' })
      expect(body.data.tokens).toEqual({ accessToken: expect.any(String), refreshToken: expect.any(String) })
      expect(response.body).not.toMatch(/password|argon2/i)
    })

    it('stores the form fields, with the consents as dates', async () => {
      const member = newMember({ tradingInterests: 'cryptocurrency', emailUpdates: true })
      await post('/auth/register', member)
      const row = await t.database.db
        .selectFrom('users')
        .selectAll()
        .where('email', '=', member.email)
        .executeTakeFirstOrThrow()
      expect(row.trading_interests).toBe('cryptocurrency')
      expect(row.email_updates).toBe(true)
      expect(row.agreed_terms_at).toBeInstanceOf(Date)
      expect(row.age_confirmed_at).toBeInstanceOf(Date)
    })

    it('hashes passwords with argon2id at the OWASP parameters', async () => {
      const member = await register(t.app)
      const row = await t.database.db
        .selectFrom('users')
        .select('password_hash')
        .where('id', '=', member.user.id)
        .executeTakeFirstOrThrow()
      expect(row.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/)
    })

    it('treats emails case-insensitively: a taken email is a clear CONFLICT', async () => {
      const member = await register(t.app)
      const response = await post('/auth/register', newMember({ email: member.user.email.toUpperCase() }))
      expect(response.statusCode).toBe(409)
      expect(response.json()).toEqual({
        success: false,
        error: 'CONFLICT',
        message: 'An account with this email already exists. Sign in or reset your password.',
      })
    })

    it.each([
      ['REGISTER-12', { firstName: '' }, 'firstName', 'First name is required'],
      ['REGISTER-13', { lastName: '   ' }, 'lastName', 'Last name is required'],
      ['REGISTER-14', { email: '' }, 'email', 'Email is required'],
      ['REGISTER-15', { email: 'ann@' }, 'email', 'Please enter a valid email'],
      ['REGISTER-16', { discordUsername: '' }, 'discordUsername', 'Discord username is required'],
      ['REGISTER-17', { password: '' }, 'password', 'Password is required'],
      ['REGISTER-18', { password: 'Ab1$' }, 'password', 'Password must be at least 8 characters'],
      [
        'REGISTER-19',
        { password: 'alllowercase1$' },
        'password',
        'Password must contain uppercase, lowercase, number, and symbol',
      ],
      [
        'REGISTER-19',
        { password: 'NoSymbolHere1' },
        'password',
        'Password must contain uppercase, lowercase, number, and symbol',
      ],
      ['REGISTER-21', { agreeToTerms: false }, 'agreeToTerms', 'You must agree to the terms'],
      [
        'REGISTER-22',
        { ageConfirmation: false },
        'ageConfirmation',
        'You must confirm you are 18+ years old',
      ],
    ])('%s the server refuses %j with "%s: %s" and creates nothing', async (_id, change, field, message) => {
      const member = newMember(change)
      const response = await post('/auth/register', member)
      expect(response.statusCode).toBe(400)
      const body = response.json()
      expect(body.error).toBe('VALIDATION_ERROR')
      expect(body.errors).toContainEqual({ field, message })
      const count = await t.database.db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('email', '=', String(member.email))
        .executeTakeFirstOrThrow()
      expect(Number(count.n)).toBe(0)
    })
  })

  describe('signing in', () => {
    it('API-08 answers the same shape as register, and a wrong password or unknown email the same 401', async () => {
      const member = await register(t.app)
      const ok = await post('/auth/login', { email: member.user.email, password: member.password })
      expect(ok.statusCode).toBe(200)
      expect(ok.json().data).toEqual({
        user: member.user,
        tokens: { accessToken: expect.any(String), refreshToken: expect.any(String) },
      })
      const wrong = await post('/auth/login', { email: member.user.email, password: 'Nope$1234' })
      const unknown = await post('/auth/login', { email: 'nobody@example.com', password: 'Nope$1234' })
      expect(wrong.statusCode).toBe(401)
      expect(wrong.json()).toEqual({
        success: false,
        error: 'UNAUTHORIZED',
        message: 'Invalid email or password',
      })
      expect(unknown.json()).toEqual(wrong.json())
    })

    it('rehashes a password stored with older parameters on the next sign-in', async () => {
      const member = await register(t.app)
      const weak = await hashPassword(member.password, {
        algorithm: 2,
        memoryCost: 4096,
        timeCost: 1,
        parallelism: 1,
      })
      await t.database.db
        .updateTable('users')
        .set({ password_hash: weak })
        .where('id', '=', member.user.id)
        .execute()
      await login(t.app, member.user.email, member.password)
      const row = await t.database.db
        .selectFrom('users')
        .select('password_hash')
        .where('id', '=', member.user.id)
        .executeTakeFirstOrThrow()
      expect(row.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/)
      await login(t.app, member.user.email, member.password)
    })

    it('locks an account after 10 failures in 15 minutes, even for the right password and any email case', async () => {
      const member = await register(t.app)
      for (let i = 0; i < 10; i++) {
        const email = i % 2 ? member.user.email.toUpperCase() : member.user.email
        const response = await post('/auth/login', { email, password: `Wrong$${i}aaA` })
        expect(response.statusCode).toBe(401)
      }
      const locked = await post('/auth/login', {
        email: ` ${member.user.email.toUpperCase()} `,
        password: member.password,
      })
      expect(locked.statusCode).toBe(429)
      expect(locked.json()).toMatchObject({
        error: 'RATE_LIMITED',
        message: expect.stringContaining('15 minutes'),
      })
      clock.advance(16 * MINUTE)
      try {
        await login(t.app, member.user.email, member.password)
      } finally {
        clock.reset()
      }
    })

    it('per-IP limits apply to the sign-in route', async () => {
      const limited = await createTestApp({
        configure: (config) => {
          config.limits.auth.loginPer15Min = 2
        },
      })
      try {
        const statuses = []
        for (let i = 0; i < 3; i++) {
          const response = await limited.app.inject({
            method: 'POST',
            url: `${API}/auth/login`,
            payload: { email: `x${i}@example.com`, password: 'x' },
            remoteAddress: '10.9.9.9',
          })
          statuses.push(response.statusCode)
        }
        expect(statuses).toEqual([401, 401, 429])
      } finally {
        await limited.close()
      }
    })
  })

  describe('access tokens', () => {
    it('API-10 a fresh access token reads the profile; none, or a tampered one, is UNAUTHORIZED', async () => {
      const member = await register(t.app)
      const profile = await as(t.app, member.accessToken, { method: 'GET', url: `${API}/auth/profile` })
      expect(profile.json().data).toEqual(member.user)
      const none = await t.app.inject({ method: 'GET', url: `${API}/auth/profile` })
      expect(none.statusCode).toBe(401)
      expect(none.json()).toMatchObject({ success: false, error: 'UNAUTHORIZED' })
      const tampered = `${member.accessToken.slice(0, -4)}AAAA`
      expect((await as(t.app, tampered, { method: 'GET', url: `${API}/auth/profile` })).statusCode).toBe(401)
    })

    it('expires after 15 minutes', async () => {
      const member = await register(t.app)
      const [, payload] = member.accessToken.split('.')
      const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString())
      expect(claims.exp - claims.iat).toBe(15 * 60)
      clock.advance(15 * MINUTE + 1000)
      try {
        expect(
          (await as(t.app, member.accessToken, { method: 'GET', url: `${API}/auth/profile` })).statusCode,
        ).toBe(401)
      } finally {
        clock.reset()
      }
    })

    it('pins the algorithm and checks issuer, audience and type', async () => {
      const member = await register(t.app)
      const [header, payload] = member.accessToken.split('.')
      const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString())
      const noneAlg = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${payload}.`
      expect((await as(t.app, noneAlg, { method: 'GET', url: `${API}/auth/profile` })).statusCode).toBe(401)
      expect(JSON.parse(Buffer.from(header!, 'base64url').toString()).alg).toBe('HS256')
      // Signed with a key we do not hold, and a token of another type/audience:
      const foreign = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256' })
        .sign(new TextEncoder().encode('x'.repeat(48)))
      expect((await as(t.app, foreign, { method: 'GET', url: `${API}/auth/profile` })).statusCode).toBe(401)
    })
  })

  describe('refresh tokens', () => {
    it('API-14 rotate on every use: data.accessToken plus a new refresh token; the old one is spent', async () => {
      const member = await register(t.app)
      const first = await post('/auth/refresh-token', { refreshToken: member.refreshToken })
      expect(first.statusCode).toBe(200)
      const { accessToken, refreshToken } = first.json().data
      expect(refreshToken).not.toBe(member.refreshToken)
      expect((await as(t.app, accessToken, { method: 'GET', url: `${API}/auth/profile` })).statusCode).toBe(
        200,
      )
      const again = await post('/auth/refresh-token', { refreshToken })
      expect(again.statusCode).toBe(200)
    })

    it('reuse of a spent token revokes the whole family, and its access tokens', async () => {
      const member = await register(t.app)
      const rotated = (await post('/auth/refresh-token', { refreshToken: member.refreshToken })).json().data
      const reuse = await post('/auth/refresh-token', { refreshToken: member.refreshToken })
      expect(reuse.statusCode).toBe(401)
      expect((await post('/auth/refresh-token', { refreshToken: rotated.refreshToken })).statusCode).toBe(401)
      expect(
        (await as(t.app, rotated.accessToken, { method: 'GET', url: `${API}/auth/profile` })).statusCode,
      ).toBe(401)
    })

    it('last 24 hours, or 30 days with remember me', async () => {
      const member = await register(t.app)
      const short = await login(t.app, member.user.email, member.password, false)
      const long = await login(t.app, member.user.email, member.password, true)
      clock.advance(25 * 60 * MINUTE)
      try {
        expect((await post('/auth/refresh-token', { refreshToken: short.refreshToken })).statusCode).toBe(401)
        const renewed = await post('/auth/refresh-token', { refreshToken: long.refreshToken })
        expect(renewed.statusCode).toBe(200)
        clock.advance(31 * 24 * 60 * MINUTE)
        expect(
          (await post('/auth/refresh-token', { refreshToken: renewed.json().data.refreshToken })).statusCode,
        ).toBe(401)
      } finally {
        clock.reset()
      }
    })
  })

  describe('signing out', () => {
    it('API-09 logout revokes that session at once and leaves the others', async () => {
      const member = await register(t.app)
      const other = await login(t.app, member.user.email, member.password)
      const out = await as(t.app, member.accessToken, { method: 'POST', url: `${API}/auth/logout` })
      expect(out.json()).toEqual({ success: true, message: 'Signed out' })
      expect(
        (await as(t.app, member.accessToken, { method: 'GET', url: `${API}/auth/profile` })).statusCode,
      ).toBe(401)
      expect((await post('/auth/refresh-token', { refreshToken: member.refreshToken })).statusCode).toBe(401)
      expect(
        (await as(t.app, other.accessToken, { method: 'GET', url: `${API}/auth/profile` })).statusCode,
      ).toBe(200)
    })

    it('logout-all revokes every session', async () => {
      const member = await register(t.app)
      const other = await login(t.app, member.user.email, member.password, true)
      await as(t.app, member.accessToken, { method: 'POST', url: `${API}/auth/logout-all` })
      for (const session of [member, other]) {
        expect(
          (await as(t.app, session.accessToken, { method: 'GET', url: `${API}/auth/profile` })).statusCode,
        ).toBe(401)
        expect((await post('/auth/refresh-token', { refreshToken: session.refreshToken })).statusCode).toBe(
          401,
        )
      }
    })
  })

  describe('profile and password', () => {
    it('API-11 updates names, Discord username and preferences; changing the email needs the password', async () => {
      const member = await register(t.app)
      const put = (payload: object) =>
        as(t.app, member.accessToken, { method: 'PUT', url: `${API}/auth/profile`, payload })
      const updated = await put({ firstName: 'Annie', discordUsername: 'annie#1', emailUpdates: false })
      expect(updated.json().data).toMatchObject({
        firstName: 'Annie',
        lastName: 'Punter',
        discordUsername: 'annie#1',
        emailUpdates: false,
      })
      const noPassword = await put({ email: 'new.address@example.com' })
      expect(noPassword.statusCode).toBe(400)
      expect(noPassword.json().errors).toEqual([
        { field: 'currentPassword', message: 'Enter your current password to change your email' },
      ])
      const other = await register(t.app)
      const taken = await put({ email: other.user.email.toUpperCase(), currentPassword: member.password })
      expect(taken.statusCode).toBe(409)
      const changed = await put({ email: `moved.${member.user.email}`, currentPassword: member.password })
      expect(changed.json().data.email).toBe(`moved.${member.user.email}`)
      await login(t.app, `moved.${member.user.email}`, member.password)
    })

    it('a password change needs the current password, signs out every other device and emails a notice', async () => {
      const member = await register(t.app)
      const other = await login(t.app, member.user.email, member.password)
      const change = (payload: object) =>
        as(t.app, member.accessToken, { method: 'PUT', url: `${API}/auth/password`, payload })
      expect((await change({ currentPassword: 'Wrong$pass1', newPassword: 'Fresh$tart22' })).statusCode).toBe(
        400,
      )
      const response = await change({ currentPassword: member.password, newPassword: 'Fresh$tart22' })
      expect(response.statusCode).toBe(200)
      const { tokens } = response.json().data
      expect(
        (await as(t.app, other.accessToken, { method: 'GET', url: `${API}/auth/profile` })).statusCode,
      ).toBe(401)
      expect(
        (await as(t.app, member.accessToken, { method: 'GET', url: `${API}/auth/profile` })).statusCode,
      ).toBe(401)
      expect(
        (await as(t.app, tokens.accessToken, { method: 'GET', url: `${API}/auth/profile` })).statusCode,
      ).toBe(200)
      await login(t.app, member.user.email, 'Fresh$tart22')
      const notice = await smtp.waitFor(
        (mail) =>
          mail.to !== undefined &&
          JSON.stringify(mail.to).includes(member.user.email) &&
          /was changed/.test(mail.subject ?? ''),
      )
      expect(notice.text).toContain('signed out')
    })
  })

  describe('forgotten passwords', () => {
    const resetLink = async (email: string, after: number) => {
      const mail = await smtp.waitFor(
        (m) =>
          JSON.stringify(m.to).includes(email) &&
          /Reset your/.test(m.subject ?? '') &&
          (m.date?.getTime() ?? 0) >= after - 1000,
      )
      const link = /https:\/\/club\.example\/reset-password\?token=([A-Za-z0-9_-]+)/.exec(mail.text ?? '')
      expect(mail.html).toContain('https://club.example/reset-password?token=')
      return { mail, token: link?.[1] ?? '' }
    }

    it('API-12 gives the same status and body for known and unknown emails', async () => {
      const member = await register(t.app)
      const known = await post('/auth/forgot-password', { email: member.user.email })
      const unknown = await post('/auth/forgot-password', { email: 'ghost@example.com' })
      expect(known.statusCode).toBe(200)
      expect(unknown.statusCode).toBe(200)
      expect(known.json()).toEqual(unknown.json())
      expect(known.json().message).toBe(
        "If an account with this email exists, you'll receive a password reset link shortly.",
      )
    })

    it('takes about the same time for known and unknown emails', async () => {
      const member = await register(t.app)
      const time = async (email: string) => {
        const started = performance.now()
        await post('/auth/forgot-password', { email })
        return performance.now() - started
      }
      const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!
      const known: number[] = []
      const unknown: number[] = []
      for (let i = 0; i < 4; i++) {
        known.push(await time(member.user.email))
        unknown.push(await time(`ghost${i}@example.com`))
      }
      expect(Math.abs(median(known) - median(unknown))).toBeLessThan(50)
    })

    it('FORGOT-07 FORGOT-08 validates the email with the SPEC messages', async () => {
      expect((await post('/auth/forgot-password', { email: '' })).json().message).toBe('Email is required')
      expect((await post('/auth/forgot-password', { email: 'nope' })).json().message).toBe(
        'Please enter a valid email address',
      )
    })

    it('API-13 emails a single-use 256-bit link built from APP_ORIGIN, never from the Host header', async () => {
      const member = await register(t.app)
      const other = await login(t.app, member.user.email, member.password)
      const started = Date.now()
      await post(
        '/auth/forgot-password',
        { email: member.user.email.toUpperCase() },
        { host: 'evil.example', 'x-forwarded-host': 'evil.example' },
      )
      const { mail, token } = await resetLink(member.user.email, started)
      expect(mail.text).not.toContain('evil.example')
      expect(Buffer.from(token, 'base64url')).toHaveLength(32)
      const reset = await post('/auth/reset-password', { token, password: 'Brand$New123' })
      expect(reset.json()).toEqual({
        success: true,
        message: 'Your password has been reset. Please sign in with your new password.',
      })
      expect(
        (await as(t.app, other.accessToken, { method: 'GET', url: `${API}/auth/profile` })).statusCode,
      ).toBe(401)
      await login(t.app, member.user.email, 'Brand$New123')
      const again = await post('/auth/reset-password', { token, password: 'Another$123' })
      expect(again.statusCode).toBe(400)
      expect(again.json().message).toBe(
        'This reset link has expired or has already been used. Please request a new one.',
      )
      await smtp.waitFor(
        (m) => JSON.stringify(m.to).includes(member.user.email) && /was reset/.test(m.subject ?? ''),
      )
      const stored = await t.database.db.selectFrom('password_resets').select('token_hash').execute()
      expect(stored.map((row) => row.token_hash)).not.toContain(token)
    })

    it('expires links after 30 minutes, and a newer link voids older ones', async () => {
      const member = await register(t.app)
      let started = Date.now()
      await post('/auth/forgot-password', { email: member.user.email })
      const first = await resetLink(member.user.email, started)
      await new Promise((resolve) => setTimeout(resolve, 1100))
      started = Date.now()
      await post('/auth/forgot-password', { email: member.user.email })
      const second = await resetLink(member.user.email, started)
      expect(second.token).not.toBe(first.token)
      expect(
        (await post('/auth/reset-password', { token: first.token, password: 'Brand$New123' })).statusCode,
      ).toBe(400)
      clock.advance(31 * MINUTE)
      try {
        expect(
          (await post('/auth/reset-password', { token: second.token, password: 'Brand$New123' })).statusCode,
        ).toBe(400)
      } finally {
        clock.reset()
      }
    })

    it('sends at most 4 reset emails per address per hour', async () => {
      const member = await register(t.app)
      for (let i = 0; i < 6; i++) await post('/auth/forgot-password', { email: member.user.email })
      await new Promise((resolve) => setTimeout(resolve, 4000))
      const sent = smtp.messages.filter(
        (m) => JSON.stringify(m.to).includes(member.user.email) && /Reset your/.test(m.subject ?? ''),
      )
      expect(sent).toHaveLength(4)
    })
  })

  describe('admins', () => {
    it('ADMIN_EMAIL and ADMIN_PASSWORD ensure the admin account exists', async () => {
      const admin = await login(t.app, 'boss@example.com', 'Admin$ecret1')
      expect(admin.user.role).toBe('admin')
    })
  })

  it('never writes passwords, hashes or tokens to the log', async () => {
    const member = await register(t.app)
    const session = await login(t.app, member.user.email, member.password)
    await post('/auth/refresh-token', { refreshToken: session.refreshToken })
    await post('/auth/forgot-password', { email: member.user.email })
    await new Promise((resolve) => setTimeout(resolve, 1500))
    const row = await t.database.db
      .selectFrom('users')
      .select('password_hash')
      .where('id', '=', member.user.id)
      .executeTakeFirstOrThrow()
    const logs = t.logs()
    expect(logs.length).toBeGreaterThan(0)
    for (const secret of [
      member.password,
      session.accessToken,
      session.refreshToken,
      member.refreshToken,
      row.password_hash,
    ]) {
      expect(logs).not.toContain(secret)
    }
    const resets = await sql<{ n: number }>`select count(*)::int as n from password_resets`.execute(
      t.database.db,
    )
    expect(resets.rows[0]?.n).toBeGreaterThan(0)
  })
})
