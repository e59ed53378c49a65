import { describe, expect, it } from 'vitest'
import { planAction, planNote } from './plan-actions'

const sub = (
  over: Partial<{ id: string; provider: string; endDate: string | null; status: string }> = {},
) => ({
  hasAccess: true,
  activeSubscription: {
    planId: { id: over.id ?? 'monthly' },
    provider: over.provider ?? 'stripe',
    endDate: over.endDate === undefined ? '2027-01-01T00:00:00Z' : over.endDate,
    status: over.status ?? 'active',
  },
})

describe('what a plan card offers a member', () => {
  it('a member without access is offered the checkout of every plan', () => {
    expect(planAction({ id: 'monthly' }, { hasAccess: false, activeSubscription: null })).toBe('subscribe')
    expect(planAction({ id: 'monthly' }, null)).toBe('subscribe')
  })
  it('a Monthly card member sees "Current plan" on Monthly and a change on the others', () => {
    expect(planAction({ id: 'monthly' }, sub())).toBe('current')
    expect(planNote(planAction({ id: 'monthly' }, sub()))).toBe('Current plan')
    expect(planAction({ id: 'yearly' }, sub())).toBe('change')
    expect(planAction({ id: 'yearly' }, sub({ status: 'trialing' }))).toBe('change')
  })
  it('a crypto member sees "Current plan" and may pay again; a lifetime member has nothing to buy', () => {
    expect(planAction({ id: 'monthly' }, sub({ provider: 'crypto' }))).toBe('extend')
    expect(planNote('extend')).toBe('Current plan')
    expect(planAction({ id: 'yearly' }, sub({ provider: 'crypto' }))).toBe('subscribe')
    expect(planAction({ id: 'monthly' }, sub({ id: 'lifetime', endDate: null }))).toBe('none')
  })
})
