import type { SignalView } from '@edgeclub/shared'
import { describe, expect, it } from 'vitest'
import { type LiveSignal, mergeFeed } from './use-live-signals'

const view = (id: string, fields: Partial<SignalView> = {}): SignalView => ({
  id,
  kind: 'pick',
  category: 'NFL',
  status: 'open',
  commitment: 'c'.repeat(64),
  publishedAt: '2026-11-20T12:00:00.000Z',
  startsAt: '2026-11-21T01:00:00.000Z',
  expiresAt: null,
  result: null,
  profitUnits: null,
  stake: 1,
  exitPrice: null,
  settledAt: null,
  voidReason: null,
  content: null,
  salt: null,
  ...fields,
})

const heard = (
  signal: SignalView,
  seq: number,
  type: LiveSignal['type'],
  publishedLive: boolean,
): LiveSignal => ({
  signal,
  type,
  seq,
  publishedLive,
  receivedAt: 0,
})

describe('the live feed', () => {
  const everything = () => true

  it('puts signals published live on top, newest first, and replaces fetched ones with what was heard since', () => {
    const fetched = [
      view('b', { publishedAt: '2026-11-19T12:00:00.000Z' }),
      view('a', { publishedAt: '2026-11-18T12:00:00.000Z' }),
    ]
    const live = new Map([
      ['d', heard(view('d', { publishedAt: '2026-11-20T14:00:00.000Z' }), 12, 'published', true)],
      ['c', heard(view('c', { publishedAt: '2026-11-20T13:00:00.000Z' }), 11, 'published', true)],
      ['a', heard(view('a', { status: 'settled', result: 'won', profitUnits: 0.91 }), 13, 'settled', false)],
    ])
    const merged = mergeFeed(fetched, live, everything)
    expect(merged.map((signal) => signal.id)).toEqual(['d', 'c', 'b', 'a'])
    expect(merged[3]).toMatchObject({ status: 'settled', result: 'won' })
  })

  it('leaves out a settlement heard for a signal further down than the loaded pages', () => {
    const live = new Map([['old', heard(view('old', { status: 'void' }), 9, 'voided', false)]])
    expect(mergeFeed([view('new')], live, everything).map((signal) => signal.id)).toEqual(['new'])
  })

  it('adds a live publication only when it matches the filter', () => {
    const live = new Map([
      ['nba', heard(view('nba', { category: 'NBA' }), 5, 'published', true)],
      ['btc', heard(view('btc', { kind: 'signal', category: 'BTC' }), 6, 'published', true)],
    ])
    const picksOnly = (signal: SignalView) => signal.kind === 'pick'
    expect(mergeFeed([], live, picksOnly).map((signal) => signal.id)).toEqual(['nba'])
  })
})
