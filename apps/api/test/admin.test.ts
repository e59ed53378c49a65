import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { as, login, register, type Session } from './helpers/members'
import { createTestApp, type TestApp } from './helpers/test-app'

const API = '/discord/api'
const ADMIN = { email: 'ops@edgeclub.test', password: 'Ops$ecret123' }

describe('the admin API', () => {
  let t: TestApp
  let admin: Session
  let member: Session & { password: string }
  beforeAll(async () => {
    t = await createTestApp({ env: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password } })
    admin = await login(t.app, ADMIN.email, ADMIN.password)
    member = await register(t.app, { firstName: 'Mia', lastName: 'Member', discordUsername: 'mia_bets' })
  })
  afterAll(() => t.close())

  /**
   * `count` members named `<prefix><n>` (e-mail, last name Fan<n>, Discord username), written straight
   * into the table: registering them one by one is slow. `extra` sets the rest, first name included.
   */
  const insertMembers = (
    prefix: string,
    count: number,
    extra: (n: number) => { first_name: string; created_at?: Date },
  ) =>
    t.database.db.insertInto('users').values(
      Array.from({ length: count }, (_, n) => ({
        email: `${prefix}${n}@example.com`,
        email_normalized: `${prefix}${n}@example.com`,
        password_hash: 'not-a-hash',
        last_name: `Fan${n}`,
        discord_username: `${prefix}_${n}`,
        ...extra(n),
      })),
    )

  const plan = () =>
    t.database.db
      .selectFrom('plans')
      .select(['id', 'name'])
      .where('slug', '=', 'weekly')
      .executeTakeFirstOrThrow()

  it('ADMIN-01 answers every admin route with 401 without a token and 403 for a member, changing nothing', async () => {
    const { id: planId } = await plan()
    const routes: [string, string, object?][] = [
      ['GET', '/admin/users'],
      ['GET', `/admin/users/${member.user.id}`],
      ['POST', `/admin/users/${member.user.id}/grant`, { days: 30 }],
      ['POST', `/admin/users/${member.user.id}/role`, { role: 'admin' }],
      ['POST', `/admin/users/${member.user.id}/disable`, { disabled: true }],
      ['GET', '/admin/subscriptions'],
      ['GET', '/admin/payments'],
      ['POST', '/admin/payments/00000000-0000-0000-0000-000000000000/refund', {}],
      ['GET', '/admin/analytics'],
      ['GET', '/admin/audit'],
      ['GET', '/admin/reconciliation'],
      ['POST', '/admin/reconciliation/run'],
      ['GET', '/admin/plans'],
      ['GET', `/admin/plans/${planId}`],
      ['POST', '/admin/plans', { name: 'Hacked', slug: 'hacked', price: 1, interval: 'month' }],
      ['PUT', `/admin/plans/${planId}`, { name: 'Hacked' }],
      ['DELETE', `/admin/plans/${planId}`],
      ['POST', `/admin/plans/${planId}/toggle`],
    ]
    for (const [method, url, payload] of routes) {
      const anonymous = await t.app.inject({ method: method as 'GET', url: `${API}${url}`, payload })
      expect(anonymous.statusCode, `${method} ${url} anonymous`).toBe(401)
      const asMember = await as(t.app, member.accessToken, {
        method: method as 'GET',
        url: `${API}${url}`,
        payload,
      })
      expect(asMember.statusCode, `${method} ${url} member`).toBe(403)
      expect(asMember.json()).toMatchObject({ success: false, error: 'FORBIDDEN' })
    }
    const after = await t.database.db
      .selectFrom('plans')
      .select(['name', 'is_active'])
      .where('id', '=', planId)
      .executeTakeFirstOrThrow()
    expect(after).toEqual({ name: 'Weekly', is_active: true })
    const user = await t.database.db
      .selectFrom('users')
      .select(['role', 'disabled_at'])
      .where('id', '=', member.user.id)
      .executeTakeFirstOrThrow()
    expect(user).toEqual({ role: 'member', disabled_at: null })
    expect(await t.database.db.selectFrom('subscriptions').select('id').execute()).toHaveLength(0)
    expect(
      await t.database.db.selectFrom('plans').select('id').where('slug', '=', 'hacked').execute(),
    ).toHaveLength(0)
  })

  it('ADMIN-02 lists members with search, a sort whitelist and bounded pages', async () => {
    for (const name of ['Zed', 'Abe', 'Kim']) await register(t.app, { firstName: name, lastName: 'Lister' })
    const list = (query: string) =>
      as(t.app, admin.accessToken, { method: 'GET', url: `${API}/admin/users?${query}` })
    const search = (await list('search=lister&sortBy=name&sortOrder=asc&limit=2')).json().data
    expect(search.pagination).toEqual({ page: 1, limit: 2, total: 3, pages: 2 })
    expect(search.items.map((u: { firstName: string }) => u.firstName)).toEqual(['Abe', 'Kim'])
    const second = (await list('search=lister&sortBy=name&sortOrder=asc&limit=2&page=2')).json().data
    expect(second.items.map((u: { firstName: string }) => u.firstName)).toEqual(['Zed'])
    const byDiscord = (await list('search=mia_bets')).json().data
    expect(byDiscord.items.map((u: { email: string }) => u.email)).toEqual([member.user.email])
    for (const bad of ['sortBy=password_hash', 'limit=101', 'page=0', 'sortOrder=sideways']) {
      const response = await list(bad)
      expect(response.statusCode, bad).toBe(400)
      expect(response.json().error).toBe('VALIDATION_ERROR')
    }
  })

  it('ADMIN-02 a broad member search counts to 1000 and says "at least"; a page past it counts that far; a narrow one is exact', async () => {
    // 1,005 members whose names hold "quokka" (inserted directly: registering them one by one is slow).
    await insertMembers('quokka', 1005, () => ({ first_name: 'Quokka' })).execute()
    const list = async (query: string) =>
      (await as(t.app, admin.accessToken, { method: 'GET', url: `${API}/admin/users?${query}` })).json().data
    const broad = await list('search=quokka')
    expect(broad.pagination).toEqual({ page: 1, limit: 20, total: 1000, pages: 50, atLeast: true })
    expect(broad.items).toHaveLength(20)
    // Page 51 of 20 (rows 1,001–1,020) counts up to its own end: 1,005 exactly, and its 5 rows.
    const deep = await list('search=quokka&page=51')
    expect(deep.pagination).toEqual({ page: 51, limit: 20, total: 1005, pages: 51 })
    expect(deep.items).toHaveLength(5)
    const narrow = await list('search=quokka100')
    // quokka100 and quokka1000 … quokka1004: six members, counted exactly.
    expect(narrow.pagination).toEqual({ page: 1, limit: 20, total: 6, pages: 1 })
    await t.database.db.deleteFrom('users').where('email', 'like', 'quokka%@example.com').execute()
  })

  it('ADMIN-02 a search by plan name pages through its holders and the members named by it alike, on shallow and deep pages', async () => {
    // 230 holders of the Yearly plan and one member whose name holds "yearly" but who holds no plan.
    // The first pages check each member's own subscriptions, deeper ones (past 200 rows) one list
    // of the holders: the pages join up to one list in the list's order either way.
    const { id: yearly } = await t.database.db
      .selectFrom('plans')
      .select('id')
      .where('slug', '=', 'yearly')
      .executeTakeFirstOrThrow()
    const start = Date.parse('2026-06-01T00:00:00Z')
    const holders = await insertMembers('holder', 231, (n) => ({
      first_name: n === 230 ? 'Yearly' : 'Holder',
      created_at: new Date(start + (n % 7) * 60_000 + n * 1000),
    }))
      .returning(['id', 'first_name', 'created_at'])
      .execute()
    await t.database.db
      .insertInto('subscriptions')
      .values(
        holders
          .filter((h) => h.first_name === 'Holder')
          .map((h) => ({
            user_id: h.id,
            plan_id: yearly,
            provider: 'admin',
            status: 'active',
            start_date: new Date(start),
            end_date: new Date(start + 365 * 86_400_000),
          })),
      )
      .execute()
    const expected = [...holders]
      .sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || (a.id < b.id ? 1 : -1))
      .map((h) => h.id)
    const page = async (n: number) =>
      (
        await as(t.app, admin.accessToken, {
          method: 'GET',
          url: `${API}/admin/users?search=yearly&limit=100&page=${n}`,
        })
      ).json().data
    const pages = [await page(1), await page(2), await page(3)]
    expect(pages.flatMap((p) => p.items.map((u: { id: string }) => u.id))).toEqual(expected)
    expect(pages[2].pagination).toEqual({ page: 3, limit: 100, total: 231, pages: 3 })
    await t.database.db.deleteFrom('subscriptions').where('plan_id', '=', yearly).execute()
    await t.database.db.deleteFrom('users').where('email', 'like', 'holder%@example.com').execute()
  })

  it('grants complimentary access, audited, and the member sees it', async () => {
    const response = await as(t.app, admin.accessToken, {
      method: 'POST',
      url: `${API}/admin/users/${member.user.id}/grant`,
      payload: { days: 14 },
    })
    expect(response.statusCode).toBe(200)
    const status = (
      await as(t.app, member.accessToken, { method: 'GET', url: `${API}/subscriptions/status` })
    ).json().data
    expect(status).toMatchObject({
      hasAccess: true,
      activeSubscription: { status: 'active', provider: 'admin' },
    })
    const detail = (
      await as(t.app, admin.accessToken, { method: 'GET', url: `${API}/admin/users/${member.user.id}` })
    ).json().data
    expect(detail.user.hasAccess).toBe(true)
    expect(detail.subscriptions).toHaveLength(1)
    const audit = (
      await as(t.app, admin.accessToken, {
        method: 'GET',
        url: `${API}/admin/audit?targetId=${member.user.id}`,
      })
    ).json().data
    expect(audit.items[0]).toMatchObject({
      action: 'user.grant',
      outcome: 'success',
      actor: { email: ADMIN.email },
      targetId: member.user.id,
    })
  })

  it('disabling an account signs it out everywhere and blocks sign-in; failures are audited too', async () => {
    const target = await register(t.app)
    await as(t.app, admin.accessToken, {
      method: 'POST',
      url: `${API}/admin/users/${target.user.id}/disable`,
      payload: { disabled: true },
    })
    expect(
      (await as(t.app, target.accessToken, { method: 'GET', url: `${API}/auth/profile` })).statusCode,
    ).toBe(401)
    const signIn = await t.app.inject({
      method: 'POST',
      url: `${API}/auth/login`,
      payload: { email: target.user.email, password: target.password },
    })
    // Refused exactly as a wrong password is, so the answer never confirms the password.
    const wrong = await t.app.inject({
      method: 'POST',
      url: `${API}/auth/login`,
      payload: { email: target.user.email, password: 'Wrong$pass1' },
    })
    expect(signIn.statusCode).toBe(401)
    expect(signIn.json()).toEqual({
      success: false,
      error: 'UNAUTHORIZED',
      message: 'Invalid email or password',
    })
    expect(signIn.json()).toEqual(wrong.json())
    const self = await as(t.app, admin.accessToken, {
      method: 'POST',
      url: `${API}/admin/users/${admin.user.id}/disable`,
      payload: { disabled: true },
    })
    expect(self.statusCode).toBe(400)
    const audit = (
      await as(t.app, admin.accessToken, { method: 'GET', url: `${API}/admin/audit?search=user.disable` })
    ).json().data
    expect(audit.items.map((entry: { outcome: string }) => entry.outcome)).toEqual(['failure', 'success'])
  })

  it('promotes and demotes, but never the last word on oneself', async () => {
    const target = await register(t.app)
    const promote = await as(t.app, admin.accessToken, {
      method: 'POST',
      url: `${API}/admin/users/${target.user.id}/role`,
      payload: { role: 'admin' },
    })
    expect(promote.json().data.role).toBe('admin')
    expect(
      (await as(t.app, target.accessToken, { method: 'GET', url: `${API}/admin/users` })).statusCode,
    ).toBe(200)
    await as(t.app, admin.accessToken, {
      method: 'POST',
      url: `${API}/admin/users/${target.user.id}/role`,
      payload: { role: 'member' },
    })
    expect(
      (await as(t.app, target.accessToken, { method: 'GET', url: `${API}/admin/users` })).statusCode,
    ).toBe(403)
    const self = await as(t.app, admin.accessToken, {
      method: 'POST',
      url: `${API}/admin/users/${admin.user.id}/role`,
      payload: { role: 'member' },
    })
    expect(self.statusCode).toBe(400)
  })

  it('answers an unknown or malformed member or payment id with NOT_FOUND, never a server error', async () => {
    const ids = ['00000000-0000-4000-8000-000000000000', '-'.repeat(36), 'not-a-member']
    for (const id of ids) {
      const calls: [string, string, object?][] = [
        ['GET', `/admin/users/${id}`],
        ['POST', `/admin/users/${id}/grant`, { days: 7 }],
        ['POST', `/admin/users/${id}/role`, { role: 'admin' }],
        ['POST', `/admin/users/${id}/disable`, { disabled: true }],
        ['POST', `/admin/payments/${id}/refund`, {}],
      ]
      for (const [method, url, payload] of calls) {
        const response = await as(t.app, admin.accessToken, {
          method: method as 'GET',
          url: `${API}${url}`,
          payload,
        })
        expect(response.statusCode, `${method} ${url}`).toBe(404)
        expect(response.json()).toMatchObject({ success: false, error: 'NOT_FOUND' })
      }
    }
  })

  describe('plans', () => {
    const input = {
      name: 'Quarterly',
      slug: 'quarterly',
      description: 'Three months',
      price: 99.5,
      currency: 'USD',
      interval: 'month',
      intervalCount: 3,
      features: ['All picks'],
      isPopular: false,
      sortOrder: 5,
      isActive: true,
    }

    it('ADMIN-12 ADMIN-13 ADMIN-15 creates, updates and toggles a plan; the public list follows', async () => {
      const created = await as(t.app, admin.accessToken, {
        method: 'POST',
        url: `${API}/admin/plans`,
        payload: input,
      })
      expect(created.statusCode).toBe(201)
      const plan = created.json().data
      expect(plan).toMatchObject({
        name: 'Quarterly',
        price: 99.5,
        intervalCount: 3,
        archived: false,
        subscriberCount: 0,
      })
      const publicList = async () =>
        (await t.app.inject({ method: 'GET', url: `${API}/admin/plans/public/active` }))
          .json()
          .data.map((p: { slug: string }) => p.slug)
      expect(await publicList()).toContain('quarterly')
      const duplicate = await as(t.app, admin.accessToken, {
        method: 'POST',
        url: `${API}/admin/plans`,
        payload: input,
      })
      expect(duplicate.statusCode).toBe(409)
      const updated = await as(t.app, admin.accessToken, {
        method: 'PUT',
        url: `${API}/admin/plans/${plan.id}`,
        payload: { price: 89, name: 'Quarter' },
      })
      expect(updated.json().data).toMatchObject({ price: 89, name: 'Quarter' })
      // An edit changes only what it sends: the features, interval and order stay as they were.
      expect(updated.json().data).toMatchObject({
        intervalCount: 3,
        features: ['All picks'],
        sortOrder: 5,
        isActive: true,
        description: input.description,
      })
      const toggled = await as(t.app, admin.accessToken, {
        method: 'POST',
        url: `${API}/admin/plans/${plan.id}/toggle`,
      })
      expect(toggled.json().data.isActive).toBe(false)
      expect(await publicList()).not.toContain('quarterly')
      const one = await as(t.app, admin.accessToken, { method: 'GET', url: `${API}/admin/plans/${plan.id}` })
      expect(one.json().data.name).toBe('Quarter')
    })

    it('validates plans field by field and names each bad field', async () => {
      const bad = await as(t.app, admin.accessToken, {
        method: 'POST',
        url: `${API}/admin/plans`,
        payload: { ...input, slug: 'Bad Slug', price: 0.1, interval: 'fortnight' },
      })
      expect(bad.statusCode).toBe(400)
      expect(
        bad
          .json()
          .errors.map((e: { field: string }) => e.field)
          .sort(),
      ).toEqual(['interval', 'price', 'slug'])
    })

    it('refuses a yearly plan that renews less often than every 3 years (Stripe cannot bill it), changing nothing', async () => {
      const send = (method: 'POST' | 'PUT', url: string, payload: object) =>
        as(t.app, admin.accessToken, { method, url: `${API}${url}`, payload })
      const tooLong = await send('POST', '/admin/plans', {
        ...input,
        slug: 'five-years',
        interval: 'year',
        intervalCount: 5,
      })
      expect(tooLong.statusCode).toBe(400)
      expect(tooLong.json()).toMatchObject({
        error: 'VALIDATION_ERROR',
        message: 'A yearly plan can renew at most every 3 years',
        errors: [{ field: 'intervalCount', message: 'A yearly plan can renew at most every 3 years' }],
      })
      const threeYears = await send('POST', '/admin/plans', {
        ...input,
        slug: 'three-years',
        interval: 'year',
        intervalCount: 3,
      })
      expect(threeYears.statusCode).toBe(201)
      const { id } = threeYears.json().data

      // An edit is checked against the stored plan: only the count, or only the interval, changes.
      const longer = await send('PUT', `/admin/plans/${id}`, { intervalCount: 4 })
      expect(longer.statusCode).toBe(400)
      expect(longer.json().message).toBe('A yearly plan can renew at most every 3 years')
      const monthly = await send('POST', '/admin/plans', {
        ...input,
        slug: 'every-ten-months',
        intervalCount: 10,
      })
      const toYears = await send('PUT', `/admin/plans/${monthly.json().data.id}`, { interval: 'year' })
      expect(toYears.statusCode).toBe(400)
      const stored = await t.database.db
        .selectFrom('plans')
        .select(['slug', 'interval', 'interval_count'])
        .where('slug', 'in', ['five-years', 'three-years', 'every-ten-months'])
        .orderBy('slug')
        .execute()
      expect(stored).toEqual([
        { slug: 'every-ten-months', interval: 'month', interval_count: 10 },
        { slug: 'three-years', interval: 'year', interval_count: 3 },
      ])
    })

    it('ADMIN-14 deletes an unused plan but archives one that had subscribers', async () => {
      const unused = (
        await as(t.app, admin.accessToken, {
          method: 'POST',
          url: `${API}/admin/plans`,
          payload: { ...input, slug: 'unused-plan' },
        })
      ).json().data
      const gone = await as(t.app, admin.accessToken, {
        method: 'DELETE',
        url: `${API}/admin/plans/${unused.id}`,
      })
      expect(gone.json().data).toEqual({ deleted: true, archived: false })
      // The grant above was on the monthly plan (the default for complimentary access).
      const monthly = await t.database.db
        .selectFrom('plans')
        .select(['id'])
        .where('slug', '=', 'monthly')
        .executeTakeFirstOrThrow()
      const archived = await as(t.app, admin.accessToken, {
        method: 'DELETE',
        url: `${API}/admin/plans/${monthly.id}`,
      })
      expect(archived.json().data).toEqual({ deleted: false, archived: true })
      const all = (
        await as(t.app, admin.accessToken, {
          method: 'GET',
          url: `${API}/admin/plans?includeArchived=true&limit=100`,
        })
      ).json().data.items
      expect(all.find((p: { id: string }) => p.id === monthly.id)).toMatchObject({
        archived: true,
        isActive: false,
      })
      const still = await t.database.db
        .selectFrom('subscriptions')
        .select('id')
        .where('plan_id', '=', monthly.id)
        .execute()
      expect(still.length).toBeGreaterThan(0)
    })

    const listPlans = (query: string) =>
      as(t.app, admin.accessToken, { method: 'GET', url: `${API}/admin/plans?${query}` })

    it('ADMIN-10 lists plans with search, sortBy, sortOrder and pages; unknown sorts and bounds are refused', async () => {
      for (const [name, price, sortOrder] of [
        ['Listing Gold', 30, 900],
        ['Listing Amber', 10, 901],
        ['Listing Cobalt', 20, 902],
      ] as const) {
        const created = await as(t.app, admin.accessToken, {
          method: 'POST',
          url: `${API}/admin/plans`,
          payload: { ...input, name, slug: name.toLowerCase().replace(' ', '-'), price, sortOrder },
        })
        expect(created.statusCode).toBe(201)
      }
      const names = async (query: string) => {
        const response = await listPlans(query)
        expect(response.statusCode, query).toBe(200)
        const { data } = response.json()
        return { names: data.items.map((p: { name: string }) => p.name), pagination: data.pagination }
      }
      expect(await names('search=listing&sortBy=price&sortOrder=asc&limit=2')).toEqual({
        names: ['Listing Amber', 'Listing Cobalt'],
        pagination: { page: 1, limit: 2, total: 3, pages: 2 },
      })
      expect(await names('search=listing&sortBy=price&sortOrder=asc&limit=2&page=2')).toEqual({
        names: ['Listing Gold'],
        pagination: { page: 2, limit: 2, total: 3, pages: 2 },
      })
      expect((await names('search=listing&sortBy=price&sortOrder=desc')).names).toEqual([
        'Listing Gold',
        'Listing Cobalt',
        'Listing Amber',
      ])
      expect((await names('search=LISTING&sortBy=name&sortOrder=desc')).names).toEqual([
        'Listing Gold',
        'Listing Cobalt',
        'Listing Amber',
      ])
      // By default the admin's own order (sortOrder, ascending).
      expect((await names('search=listing')).names).toEqual([
        'Listing Gold',
        'Listing Amber',
        'Listing Cobalt',
      ])
      // The search also finds a plan by its slug.
      expect((await names('search=listing-amb')).names).toEqual(['Listing Amber'])
      expect(await names('search=no-such-plan')).toEqual({
        names: [],
        pagination: { page: 1, limit: 20, total: 0, pages: 0 },
      })

      const everything = (await listPlans('limit=100')).json().data
      const inDatabase = await t.database.db.selectFrom('plans').select('id').execute()
      expect(everything.pagination.total).toBe(inDatabase.length)
      expect(everything.items.map((p: { id: string }) => p.id).sort()).toEqual(
        inDatabase.map((p) => p.id).sort(),
      )

      for (const [bad, message] of [
        ['sortBy=price_minor', 'sortBy must be one of sortOrder, name, price, createdAt'],
        ['sortBy=status', 'sortBy must be one of sortOrder, name, price, createdAt'],
        ['sortOrder=sideways', undefined],
        ['limit=0', undefined],
        ['limit=101', undefined],
        ['page=0', undefined],
      ] as const) {
        const response = await listPlans(bad)
        expect(response.statusCode, bad).toBe(400)
        expect(response.json()).toMatchObject({ success: false, error: 'VALIDATION_ERROR' })
        if (message) expect(response.json().message).toBe(message)
      }
    })

    it('ADMIN-11 returns one plan with its subscriber count; unknown or malformed ids are NOT_FOUND', async () => {
      const created = (
        await as(t.app, admin.accessToken, {
          method: 'POST',
          url: `${API}/admin/plans`,
          payload: {
            name: 'Biennial',
            slug: 'biennial',
            description: 'Two years of picks',
            price: 450.5,
            currency: 'eur',
            interval: 'year',
            intervalCount: 2,
            features: ['All picks', 'Priority support'],
            isPopular: true,
            sortOrder: 7,
          },
        })
      ).json().data
      const one = await as(t.app, admin.accessToken, {
        method: 'GET',
        url: `${API}/admin/plans/${created.id}`,
      })
      expect(one.statusCode).toBe(200)
      expect(one.json()).toEqual({
        success: true,
        data: {
          id: created.id,
          _id: created.id,
          name: 'Biennial',
          slug: 'biennial',
          description: 'Two years of picks',
          price: 450.5,
          currency: 'EUR',
          interval: 'year',
          intervalCount: 2,
          features: ['All picks', 'Priority support'],
          isPopular: true,
          sortOrder: 7,
          isActive: true,
          trialDays: 0,
          archived: false,
          subscriberCount: 0,
          // Made without places: it opens every place, as plans did before places.
          places: { discordRoles: 'all', telegramChats: 'all', signalCategories: 'all' },
        },
      })

      // A plan somebody holds: the detail counts them as the list does.
      const { id: weeklyId } = await plan()
      const holder = await register(t.app)
      await as(t.app, admin.accessToken, {
        method: 'POST',
        url: `${API}/admin/users/${holder.user.id}/grant`,
        payload: { days: 7, planId: weeklyId },
      })
      const listed = (await listPlans('search=weekly')).json().data.items
      expect(listed).toHaveLength(1)
      const weekly = (
        await as(t.app, admin.accessToken, { method: 'GET', url: `${API}/admin/plans/${weeklyId}` })
      ).json().data
      expect(weekly).toMatchObject({ id: weeklyId, slug: 'weekly', name: 'Weekly', subscriberCount: 1 })
      expect(weekly).toEqual(listed[0])

      for (const id of [
        '00000000-0000-4000-8000-000000000000',
        'not-a-plan',
        '0123456789abcdef0123456789abcdef0123',
      ]) {
        const response = await as(t.app, admin.accessToken, {
          method: 'GET',
          url: `${API}/admin/plans/${id}`,
        })
        expect(response.statusCode, id).toBe(404)
        expect(response.json()).toEqual({ success: false, error: 'NOT_FOUND', message: 'Plan not found' })
      }
    })
  })

  it('ADMIN-08 computes analytics from the database, consistent with the lists', async () => {
    const analytics = (
      await as(t.app, admin.accessToken, { method: 'GET', url: `${API}/admin/analytics` })
    ).json().data
    const subscriptions = (
      await as(t.app, admin.accessToken, {
        method: 'GET',
        url: `${API}/admin/subscriptions?status=active&limit=100`,
      })
    ).json().data
    const activeUsers = new Set(subscriptions.items.map((s: { userId: string }) => s.userId))
    expect(analytics.activeMembers).toBe(activeUsers.size)
    expect(analytics.revenueByMonth).toHaveLength(12)
    expect(analytics.mrr).toBe(0)
    expect(
      analytics.planMix.reduce((sum: number, row: { members: number }) => sum + row.members, 0),
    ).toBeGreaterThanOrEqual(activeUsers.size)
    expect(analytics).toMatchObject({
      currency: 'USD',
      newMembers30d: expect.any(Number),
      cancellations30d: expect.any(Number),
      churnRate: expect.any(Number),
    })
  })

  it('exports the filtered payments as CSV', async () => {
    const response = await as(t.app, admin.accessToken, {
      method: 'GET',
      url: `${API}/admin/payments?format=csv&provider=admin`,
    })
    expect(response.headers['content-type']).toContain('text/csv')
    const lines = response.body.trim().split('\r\n')
    expect(lines[0]).toBe('id,member,kind,plan,amount,refunded,currency,status,provider,created_at')
    expect(lines.slice(1).every((line) => line.includes(',grant,') && line.includes(',admin,'))).toBe(true)
    expect(lines.length).toBeGreaterThan(1)
  })
})
