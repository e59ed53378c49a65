import { signalMessages } from '@edgeclub/shared'
import { describe, expect, it } from 'vitest'
import {
  americanOdds,
  emptySignalForm,
  readExitPrice,
  readSignalForm,
  readVoidReason,
  type SignalFormFields,
} from './signal-form'

const now = new Date('2026-11-20T12:00:00.000Z')
/** A datetime-local value for an instant (the form's inputs hold local time). */
const local = (iso: string) => {
  const date = new Date(iso)
  const pad = (value: number) => String(value).padStart(2, '0')
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`
}

const pick = (fields: Partial<SignalFormFields> = {}): SignalFormFields => ({
  ...emptySignalForm,
  kind: 'pick',
  sport: 'NFL',
  league: 'Week 12',
  event: 'Chiefs vs Bills',
  startsAt: local('2026-11-21T01:15:00.000Z'),
  market: 'spread',
  selection: 'Chiefs -3.5',
  odds: '1.91',
  stake: '1',
  ...fields,
})

const trade = (fields: Partial<SignalFormFields> = {}): SignalFormFields => ({
  ...emptySignalForm,
  kind: 'signal',
  instrument: 'btc',
  direction: 'long',
  entry: '64,000',
  target: '67500',
  stop: '62500',
  expiresAt: local('2026-11-27T12:00:00.000Z'),
  stake: '',
  ...fields,
})

describe('the publish form', () => {
  it('reads a pick as POST /signals takes it: decimal odds, the start as an ISO instant, blank optionals left out', () => {
    expect(readSignalForm(pick({ league: '  ', analysis: '' }), now)).toEqual({
      ok: true,
      input: {
        kind: 'pick',
        sport: 'NFL',
        event: 'Chiefs vs Bills',
        startsAt: '2026-11-21T01:15:00.000Z',
        market: 'spread',
        selection: 'Chiefs -3.5',
        odds: 1.91,
        stake: 1,
      },
    })
  })

  it('converts American odds with the shared rule: +150 is 2.5, -110 is 1.91', () => {
    expect(americanOdds('+150')).toBe(2.5)
    expect(americanOdds('-110')).toBe(1.91)
    expect(americanOdds('150')).toBe(2.5)
    expect(readSignalForm(pick({ oddsFormat: 'american', odds: '-110' }), now)).toMatchObject({
      ok: true,
      input: { odds: 1.91 },
    })
  })

  it('refuses American odds under 100 either way, or not a number, in the shared words', () => {
    for (const odds of ['+50', '-99', 'evens', '']) {
      expect(readSignalForm(pick({ oddsFormat: 'american', odds }), now)).toEqual({
        ok: false,
        errors: { odds: signalMessages.americanOdds },
      })
    }
  })

  it("refuses what the server refuses, with the server's messages", () => {
    expect(readSignalForm(pick({ odds: '1' }), now)).toEqual({
      ok: false,
      errors: { odds: signalMessages.odds },
    })
    expect(readSignalForm(pick({ stake: '11' }), now)).toEqual({
      ok: false,
      errors: { stake: signalMessages.stake },
    })
    expect(readSignalForm(pick({ analysis: 'x'.repeat(5001) }), now)).toEqual({
      ok: false,
      errors: { analysis: 'At most 5000 characters' },
    })
    const blank = readSignalForm({ ...emptySignalForm, stake: '' }, now)
    expect(blank).toEqual({
      ok: false,
      errors: {
        sport: 'Choose a sport',
        event: 'Name the event',
        startsAt: 'When does the event start?',
        market: 'Choose a market',
        selection: 'Name the selection',
        odds: signalMessages.odds,
        stake: signalMessages.stake,
      },
    })
  })

  it('refuses a pick that has already started', () => {
    expect(readSignalForm(pick({ startsAt: local('2026-11-20T11:59:00.000Z') }), now)).toEqual({
      ok: false,
      errors: { startsAt: signalMessages.startsInPast },
    })
  })

  it('reads a trading signal: the ticker upper-cased, the stake 1 unit when left blank', () => {
    expect(readSignalForm(trade(), now)).toEqual({
      ok: true,
      input: {
        kind: 'signal',
        instrument: 'BTC',
        direction: 'long',
        entry: 64000,
        target: 67500,
        stop: 62500,
        expiresAt: '2026-11-27T12:00:00.000Z',
        stake: 1,
      },
    })
  })

  it('refuses levels that do not fit the direction, and an expiry in the past', () => {
    expect(readSignalForm(trade({ target: '60000' }), now)).toEqual({
      ok: false,
      errors: { stop: signalMessages.longLevels },
    })
    expect(readSignalForm(trade({ direction: 'short' }), now)).toEqual({
      ok: false,
      errors: { stop: signalMessages.shortLevels },
    })
    expect(readSignalForm(trade({ expiresAt: local('2026-11-20T11:00:00.000Z') }), now)).toEqual({
      ok: false,
      errors: { expiresAt: signalMessages.expiresInPast },
    })
  })

  it('reads an exit price and a void reason with the settle and void schemas', () => {
    expect(readExitPrice('3,512.5')).toEqual({ ok: true, exitPrice: 3512.5 })
    expect(readExitPrice('0')).toEqual({ ok: false, error: 'The exit price must be above 0' })
    expect(readExitPrice('')).toEqual({ ok: false, error: 'The exit price must be above 0' })
    expect(readVoidReason('  Game postponed ')).toEqual({ ok: true, reason: 'Game postponed' })
    expect(readVoidReason('   ')).toEqual({ ok: false, error: 'Say why the signal is void' })
  })
})
