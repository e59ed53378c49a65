import { sortPlansBySlug } from '@edgeclub/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, createTestDatabase, type TestApp, type TestDatabase } from './helpers/test-app'

describe('plans', () => {
  let database: TestDatabase
  let t: TestApp
  beforeAll(async () => {
    database = await createTestDatabase()
    t = await createTestApp({ database })
  })
  afterAll(async () => {
    await t.close()
    await database.drop()
  })

  it('PRICING-01 PRICING-20 API-20 serves the four seeded plans with every plan field, without a token', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/discord/api/admin/plans/public/active' })
    expect(response.statusCode).toBe(200)
    const { success, data } = response.json()
    expect(success).toBe(true)
    expect(data).toHaveLength(4)
    for (const plan of data) {
      expect(plan).toEqual({
        id: expect.any(String),
        _id: plan.id,
        name: expect.any(String),
        slug: expect.any(String),
        description: expect.any(String),
        price: expect.any(Number),
        currency: 'USD',
        interval: expect.stringMatching(/^(week|month|year|lifetime)$/),
        intervalCount: 1,
        features: expect.arrayContaining([expect.any(String)]),
        isPopular: expect.any(Boolean),
        sortOrder: expect.any(Number),
        isActive: true,
        trialDays: 0,
      })
    }
  })

  it('PRICING-21 seeds weekly, monthly (popular), yearly and lifetime, where twelve months cost more than a year', async () => {
    const { data } = (await t.app.inject({ method: 'GET', url: '/discord/api/subscriptions/plans' })).json()
    const plans = sortPlansBySlug(
      data as { slug: string; sortOrder: number; price: number; interval: string; isPopular: boolean }[],
    )
    expect(plans.map((plan) => [plan.slug, plan.interval])).toEqual([
      ['weekly', 'week'],
      ['monthly', 'month'],
      ['yearly', 'year'],
      ['lifetime', 'lifetime'],
    ])
    expect(plans.filter((plan) => plan.isPopular).map((plan) => plan.slug)).toEqual(['monthly'])
    const [, monthly, yearly] = plans
    expect(monthly!.price * 12).toBeGreaterThan(yearly!.price)
  })

  it('API-21 serves the same plans at /subscriptions/plans', async () => {
    const a = (await t.app.inject({ method: 'GET', url: '/discord/api/subscriptions/plans' })).json()
    const b = (await t.app.inject({ method: 'GET', url: '/discord/api/admin/plans/public/active' })).json()
    expect(a).toEqual(b)
  })

  it('seeds only on the first start: a restart on the same database keeps four plans', async () => {
    const again = await createTestApp({ database })
    try {
      const { data } = (
        await again.app.inject({ method: 'GET', url: '/discord/api/subscriptions/plans' })
      ).json()
      expect(data).toHaveLength(4)
    } finally {
      await again.close()
    }
  })
})
