import { describe, expect, it } from 'vitest'
import {
  intervalText,
  savingText,
  sortPlansBySlug,
  subscribeLabel,
  trialText,
  yearlySaving,
} from './plan-rules'

const plan = (slug: string, sortOrder = 0) => ({ slug, sortOrder })

describe('plan rules', () => {
  it('PRICING-02 sorts plans weekly, monthly, yearly, lifetime whatever order they arrive in', () => {
    const sorted = sortPlansBySlug([plan('lifetime'), plan('yearly'), plan('weekly'), plan('monthly')])
    expect(sorted.map((p) => p.slug)).toEqual(['weekly', 'monthly', 'yearly', 'lifetime'])
  })

  it('PRICING-03 puts a plan with an unknown slug last', () => {
    const sorted = sortPlansBySlug([plan('vip'), plan('lifetime'), plan('weekly')])
    expect(sorted.map((p) => p.slug)).toEqual(['weekly', 'lifetime', 'vip'])
  })

  it('PRICING-06 gives a lifetime plan no interval text', () => {
    expect(intervalText({ interval: 'lifetime', intervalCount: 1 })).toBeNull()
  })

  it("PRICING-07 reads 'per {interval}' for an interval count of 1", () => {
    expect(intervalText({ interval: 'month', intervalCount: 1 })).toBe('per month')
    expect(intervalText({ interval: 'week', intervalCount: 1 })).toBe('per week')
  })

  it("PRICING-08 reads 'per {n} {interval}s' for any other interval count", () => {
    expect(intervalText({ interval: 'month', intervalCount: 3 })).toBe('per 3 months')
    expect(intervalText({ interval: 'year', intervalCount: 2 })).toBe('per 2 years')
  })

  it('PRICING-11 computes the yearly saving only when twelve months cost more', () => {
    expect(yearlySaving({ price: 299.99 }, { price: 39.99 })).toBe(179.89)
    expect(savingText(179.89, 'USD')).toBe('Save $179.89/year')
    expect(yearlySaving({ price: 480 }, { price: 40 })).toBeNull()
    expect(yearlySaving({ price: 500 }, { price: 40 })).toBeNull()
    expect(yearlySaving({ price: 100 }, undefined)).toBeNull()
  })

  it("PRICING-13 labels the lifetime button 'Get Lifetime Access' and others 'Subscribe to {name}'", () => {
    expect(subscribeLabel({ interval: 'lifetime', name: 'Lifetime' })).toBe('Get Lifetime Access')
    expect(subscribeLabel({ interval: 'month', name: 'Monthly' })).toBe('Subscribe to Monthly')
  })

  it("says '{n}-day free trial' on a recurring plan with trial days, and nothing on lifetime or without", () => {
    expect(trialText({ interval: 'month', trialDays: 7 })).toBe('7-day free trial')
    expect(trialText({ interval: 'week', trialDays: 1 })).toBe('1-day free trial')
    expect(trialText({ interval: 'month', trialDays: 0 })).toBeNull()
    expect(trialText({ interval: 'lifetime', trialDays: 7 })).toBeNull()
  })
})
