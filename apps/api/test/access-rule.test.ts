import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hasAccessAt } from '../src/modules/subscriptions/access-rule'
import { as, login, register, type Session } from './helpers/members'
import { createTestApp, type TestApp } from './helpers/test-app'

const API = '/discord/api'
const ADMIN = { email: 'access.ops@edgeclub.test', password: 'Ops$ecret123' }
const SECOND = 1000
const DAY = 24 * 3600 * SECOND

/**
 * Every reader of "has access now" must agree: the member's own status, the admin list and counts,
 * the plan's subscriber count and the Discord role sync. Each edge row states by hand whether it
 * gives access, so a copy of the rule that drifts fails here.
 */
describe('one access rule for every reader', () => {
  let t: TestApp
  let admin: Session
  let planId: string
  const members: { name: string; session: Session; expected: boolean }[] = []

  beforeAll(async () => {
    t = await createTestApp({ env: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password } })
    admin = await login(t.app, ADMIN.email, ADMIN.password)
    const db = t.database.db
    const plan = await db
      .insertInto('plans')
      .values({
        name: 'Agreement',
        slug: 'agreement',
        description: 'edge rows',
        price_minor: 1000,
        currency: 'USD',
        interval: 'month',
        interval_count: 1,
        features: JSON.stringify([]),
        is_popular: false,
        sort_order: 99,
        is_active: false,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
    planId = plan.id
    const now = Date.now()
    const at = (offset: number) => new Date(now + offset)
    const rows: {
      name: string
      expected: boolean
      row: {
        status: 'active' | 'past_due' | 'expired' | 'cancelled'
        provider: 'stripe' | 'crypto' | 'admin'
        end_date: Date | null
        grace_until?: Date | null
        cancel_at_period_end?: boolean
      }
    }[] = [
      {
        name: 'ended a second ago',
        expected: false,
        row: { status: 'active', provider: 'stripe', end_date: at(-SECOND) },
      },
      {
        name: 'runs for a day more',
        expected: true,
        row: { status: 'active', provider: 'stripe', end_date: at(DAY) },
      },
      {
        name: 'past due inside grace',
        expected: true,
        row: { status: 'past_due', provider: 'stripe', end_date: at(-DAY), grace_until: at(DAY) },
      },
      {
        name: 'past due outside grace',
        expected: false,
        row: { status: 'past_due', provider: 'stripe', end_date: at(-3 * DAY), grace_until: at(-SECOND) },
      },
      { name: 'lifetime', expected: true, row: { status: 'active', provider: 'stripe', end_date: null } },
      {
        name: 'cancelled at period end, not ended yet',
        expected: true,
        row: { status: 'active', provider: 'stripe', end_date: at(5 * DAY), cancel_at_period_end: true },
      },
      {
        name: 'admin grant',
        expected: true,
        row: { status: 'active', provider: 'admin', end_date: at(7 * DAY) },
      },
      {
        name: 'crypto period',
        expected: true,
        row: { status: 'active', provider: 'crypto', end_date: at(20 * DAY) },
      },
      { name: 'expired', expected: false, row: { status: 'expired', provider: 'stripe', end_date: at(DAY) } },
      {
        name: 'refunded (cancelled)',
        expected: false,
        row: { status: 'cancelled', provider: 'stripe', end_date: at(DAY) },
      },
    ]
    for (const [index, { name, expected, row }] of rows.entries()) {
      const session = await register(t.app, { discordUsername: `edge_${index}_${now}` })
      await db
        .insertInto('subscriptions')
        .values({ user_id: session.user.id, plan_id: planId, start_date: at(-30 * DAY), ...row })
        .execute()
      members.push({ name, session, expected })
    }
  })
  afterAll(() => t.close())

  it('the member status, the admin list and counts, the plan count and the Discord sync agree on every edge row', async () => {
    const adminGet = async (url: string) => {
      const response = await as(t.app, admin.accessToken, { method: 'GET', url: `${API}${url}` })
      expect(response.statusCode, url).toBe(200)
      return response.json().data
    }
    const candidates = new Set(await t.app.services.community.syncCandidates())

    for (const { name, session, expected } of members) {
      const status = await as(t.app, session.accessToken, {
        method: 'GET',
        url: `${API}/subscriptions/status`,
      })
      expect(status.json().data.hasAccess, `${name}: /subscriptions/status`).toBe(expected)

      const listed = await adminGet(`/admin/users?search=${encodeURIComponent(session.user.email)}`)
      expect(listed.items, name).toHaveLength(1)
      expect(listed.items[0].hasAccess, `${name}: admin list`).toBe(expected)

      const detail = await adminGet(`/admin/users/${session.user.id}`)
      expect(detail.user.hasAccess, `${name}: admin detail`).toBe(expected)

      expect(candidates.has(session.user.id), `${name}: Discord sync candidates`).toBe(expected)
    }

    const withAccess = members.filter((member) => member.expected).length
    expect(withAccess).toBe(6)
    const analytics = await adminGet('/admin/analytics')
    expect(analytics.activeMembers, 'analytics: active members').toBe(withAccess)
    expect(
      analytics.planMix.find((row: { planId: string }) => row.planId === planId)?.members,
      'analytics: plan mix',
    ).toBe(withAccess)

    const plans = await adminGet('/admin/plans?limit=100')
    expect(
      plans.items.find((plan: { id: string }) => plan.id === planId)?.subscriberCount,
      'plan list: subscriber count',
    ).toBe(withAccess)
    expect((await adminGet(`/admin/plans/${planId}`)).subscriberCount, 'plan detail: subscriber count').toBe(
      withAccess,
    )
  })

  it('the rule read forward (a live stream trusts what it looked at until then) ends access exactly when the rule does', async () => {
    const { places } = t.app.services
    const held = await places.accessPlans(members.map((member) => member.session.user.id))
    for (const { name, session, expected } of members) {
      const access = held.get(session.user.id)
      expect(access !== undefined, name).toBe(expected)
      if (!access) continue
      if (name === 'lifetime') expect(access.until, name).toBeNull()
      else expect(access.until, name).toEqual(expect.any(Number))
      if (access.until === null) continue
      // The rule itself, asked a moment before and at that instant.
      const at = async (ms: number) =>
        (
          await t.database.db
            .selectFrom('subscriptions')
            .select('id')
            .where('user_id', '=', session.user.id)
            .where((eb) => hasAccessAt(eb, new Date(ms)))
            .execute()
        ).length > 0
      expect(await at(access.until - 1), `${name}: just before`).toBe(true)
      expect(await at(access.until), `${name}: at the end`).toBe(false)
    }
  })
})
