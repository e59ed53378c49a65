import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventually } from './helpers/billing'
import { as, login, register } from './helpers/members'
import { createTestApp, createTestDatabase, type TestApp, type TestDatabase } from './helpers/test-app'

const API = '/discord/api'
const ADMIN = { email: 'cache.admin@edgeclub.test', password: 'Adm1n$ecure-sessions' }

/**
 * Signed-in users are kept in memory for a few seconds (modules/auth/session-cache.ts). Whatever
 * ends or changes a session counts on the very next request of this instance, and on another instance
 * as soon as the database's announcement reaches it.
 */
describe('signed-in users kept in memory', () => {
  let database: TestDatabase
  let a: TestApp
  let b: TestApp
  beforeAll(async () => {
    database = await createTestDatabase()
    // One signing secret, as every instance of one deployment has.
    const env = {
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      JWT_SECRET: 'session-cache-test-'.padEnd(48, 'x'),
    }
    // Two instances of the app on one database, as behind a load balancer.
    a = await createTestApp({ database, env })
    b = await createTestApp({ database, env })
  })
  afterAll(async () => {
    await a.close()
    await b.close()
    await database.drop()
  })

  const profile = (t: TestApp, token: string) =>
    as(t.app, token, { method: 'GET', url: `${API}/auth/profile` })

  it('API-09 logout counts on the next request, though the session was just read from memory', async () => {
    const member = await register(a.app)
    for (let i = 0; i < 3; i++) expect((await profile(a, member.accessToken)).statusCode).toBe(200)
    await as(a.app, member.accessToken, { method: 'POST', url: `${API}/auth/logout` })
    expect((await profile(a, member.accessToken)).statusCode).toBe(401)
  })

  it('a session ended on one instance is refused by the other, which had it in memory', async () => {
    const member = await register(a.app)
    expect((await profile(b, member.accessToken)).statusCode).toBe(200)
    expect((await profile(b, member.accessToken)).statusCode).toBe(200)
    await as(a.app, member.accessToken, { method: 'POST', url: `${API}/auth/logout-all` })
    await eventually(
      async () => (await profile(b, member.accessToken)).statusCode,
      (status) => status === 401,
      2_000,
    )
  })

  it('a session revoked straight in the database (an operator, another process) is refused', async () => {
    const member = await register(a.app)
    expect((await profile(a, member.accessToken)).statusCode).toBe(200)
    await sql`update sessions set revoked_at = now(), revoke_reason = 'operator' where user_id = ${member.user.id}`.execute(
      a.database.db,
    )
    await eventually(
      async () => (await profile(a, member.accessToken)).statusCode,
      (status) => status === 401,
      2_000,
    )
  })

  it('a disabled account and a removed admin role count on the next request', async () => {
    const admin = await login(a.app, ADMIN.email, ADMIN.password)
    const member = await register(a.app)
    const second = await register(a.app)
    expect((await profile(a, member.accessToken)).statusCode).toBe(200)
    const disabled = await as(a.app, admin.accessToken, {
      method: 'POST',
      url: `${API}/admin/users/${member.user.id}/disable`,
      payload: { disabled: true },
    })
    expect(disabled.statusCode).toBe(200)
    expect((await profile(a, member.accessToken)).statusCode).toBe(401)

    // Promoted, seen as admin (and kept so), then demoted: the next admin request is refused.
    await as(a.app, admin.accessToken, {
      method: 'POST',
      url: `${API}/admin/users/${second.user.id}/role`,
      payload: { role: 'admin' },
    })
    const promoted = await login(a.app, second.user.email, second.password)
    const adminList = () => as(a.app, promoted.accessToken, { method: 'GET', url: `${API}/admin/users` })
    expect((await adminList()).statusCode).toBe(200)
    await as(a.app, admin.accessToken, {
      method: 'POST',
      url: `${API}/admin/users/${second.user.id}/role`,
      payload: { role: 'member' },
    })
    expect((await adminList()).statusCode).toBe(403)
  })

  it('a profile change shows on the next read; a password change signs the other devices out', async () => {
    const member = await register(a.app)
    const phone = await login(a.app, member.user.email, member.password)
    expect((await profile(a, phone.accessToken)).json().data.firstName).toBe('Ann')
    const updated = await as(a.app, member.accessToken, {
      method: 'PUT',
      url: `${API}/auth/profile`,
      payload: { firstName: 'Annette' },
    })
    expect(updated.statusCode).toBe(200)
    expect((await profile(a, phone.accessToken)).json().data.firstName).toBe('Annette')

    const changed = await as(a.app, member.accessToken, {
      method: 'PUT',
      url: `${API}/auth/password`,
      payload: { currentPassword: member.password, newPassword: 'An0ther$tr0ng-one' },
    })
    expect(changed.statusCode).toBe(200)
    expect((await profile(a, phone.accessToken)).statusCode).toBe(401)
    expect((await profile(a, member.accessToken)).statusCode).toBe(401)
  })
})
