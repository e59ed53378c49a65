import type { SubscriptionView } from '@edgeclub/shared'
import { describe, expect, it } from 'vitest'
import { accessLine, planStateLines, shownSubscription } from './member-summary'

/** The member page's Access line comes from the subscription the server says gives access now. */
const yearly: SubscriptionView = {
  _id: 's1',
  id: 's1',
  planId: { _id: 'plan-y', id: 'plan-y', name: 'Yearly', slug: 'yearly', interval: 'year' },
  status: 'active',
  provider: 'admin',
  startDate: '2026-03-03T12:00:00.000Z',
  endDate: '2027-03-03T12:00:00.000Z',
  graceUntil: null,
  cancelAtPeriodEnd: false,
  createdAt: '2026-03-03T12:00:00.000Z',
  trialEndsAt: null,
  resumesAt: null,
  scheduledChange: null,
}

describe("the admin member page's access line", () => {
  it('names the plan and the day access ends', () => {
    expect(accessLine(yearly)).toBe('Active · Yearly · until Mar 3, 2027')
  })

  it('reads lifetime for a plan without an end date', () => {
    const lifetime: SubscriptionView = {
      ...yearly,
      planId: { ...yearly.planId, name: 'Lifetime', slug: 'lifetime', interval: 'lifetime' },
      endDate: null,
    }
    expect(accessLine(lifetime)).toBe('Active · Lifetime · lifetime')
  })

  it('shows the end of the grace period for a renewal past due', () => {
    const pastDue: SubscriptionView = {
      ...yearly,
      status: 'past_due',
      endDate: '2026-03-03T12:00:00.000Z',
      graceUntil: '2026-03-06T12:00:00.000Z',
    }
    expect(accessLine(pastDue)).toBe('Active · Yearly · until Mar 6, 2026')
  })

  it('reads None without access', () => {
    expect(accessLine(null)).toBe('None')
  })
})

describe("the admin member page's plan status", () => {
  it('says when a trial ends', () => {
    expect(
      planStateLines({ ...yearly, status: 'trialing', trialEndsAt: '2026-03-10T12:00:00.000Z' }),
    ).toEqual(['Trial — ends Mar 10, 2026'])
  })

  it('says when a paused plan resumes, and when a pause still to come starts', () => {
    const paused = { ...yearly, status: 'paused' as const, resumesAt: '2027-06-03T12:00:00.000Z' }
    expect(planStateLines(paused)).toEqual(['Paused — resumes Jun 3, 2027'])
    expect(planStateLines({ ...paused, status: 'active' })).toEqual([
      'Pauses Mar 3, 2027 — resumes Jun 3, 2027',
    ])
  })

  it('names the plan a scheduled change switches to, and when', () => {
    const switching = {
      ...yearly,
      scheduledChange: { planId: 'plan-m', planName: 'Monthly', effectiveAt: '2027-03-03T12:00:00.000Z' },
    }
    expect(planStateLines(switching)).toEqual(['Switches to Monthly on Mar 3, 2027'])
  })

  it('says nothing of a plain active plan, and shows a paused plan when nothing gives access', () => {
    expect(planStateLines(yearly)).toEqual([])
    const paused = { ...yearly, id: 's2', status: 'paused' as const }
    expect(shownSubscription(null, [{ ...yearly, status: 'expired' }, paused])).toBe(paused)
    expect(shownSubscription(yearly, [paused])).toBe(yearly)
  })
})
