import { afterEach, describe, expect, it } from 'vitest'
import { dateFormat, formatDate, formatNumber, mediumDay, mediumMoment, numberFormat } from './intl'

let seed = 7
const random = () => {
  seed = (seed * 16807) % 2147483647
  return seed / 2147483647
}

describe('the shared formatters', () => {
  const zone = process.env.TZ
  afterEach(() => {
    if (zone === undefined) delete process.env.TZ
    else process.env.TZ = zone
  })

  it('write numbers exactly as Intl.NumberFormat would, without making one', () => {
    const values = [
      0,
      -0,
      1,
      12,
      1.005,
      0.0005,
      -0.0004,
      999.9995,
      1234.5,
      1234567.891,
      0.000012345,
      1e-7,
      2 ** 53,
      1e21,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      ...Array.from({ length: 2_001 }, (_, k) => k / 1000),
    ]
    for (const scale of [1e-4, 1e-2, 1, 1e3, 1e6, 1e9, 1e12, 1e15])
      for (let i = 0; i < 300; i++) values.push(random() * scale)
    for (const digits of [undefined, 0, 2, 4, 8]) {
      const options = digits === undefined ? {} : { maximumFractionDigits: digits }
      const intl = new Intl.NumberFormat('en-US', options)
      for (const value of values.flatMap((v) => [v, -v]))
        expect(formatNumber(value, options), `${value} (${digits})`).toBe(intl.format(value))
    }
  })

  it('write days and moments exactly as Intl.DateTimeFormat would, in the reader’s time zone', () => {
    for (const timeZone of ['UTC', 'America/New_York', 'Asia/Kolkata', 'Pacific/Chatham']) {
      process.env.TZ = timeZone
      const day = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium' })
      const moment = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short' })
      const instants = [
        '2026-11-28T03:05:09.000Z',
        '2024-02-29T23:59:59.999Z',
        '2026-03-08T07:00:00.000Z',
        '1999-12-31T12:00:00.000Z',
      ].map((iso) => Date.parse(iso))
      for (let i = 0; i < 1_000; i++) instants.push(Date.UTC(1990, 0, 1) + random() * 60 * 365 * 86_400_000)
      for (const instant of instants) {
        const iso = new Date(instant).toISOString()
        expect(mediumDay(iso), `${iso} in ${timeZone}`).toBe(day.format(instant))
        expect(mediumMoment(instant), `${iso} in ${timeZone}`).toBe(moment.format(instant))
      }
    }
    expect(mediumDay('not a date')).toBe(
      new Date('not a date').toLocaleDateString('en-US', { dateStyle: 'medium' }),
    )
    expect(mediumMoment(Number.NaN)).toBe('Invalid Date')
  })

  it('formats other date styles with Intl', () => {
    const date = new Date('2026-11-28T03:05:09.000Z')
    expect(formatDate(date, { month: 'long', year: 'numeric', timeZone: 'UTC' })).toBe('November 2026')
    expect(formatDate(date.getTime(), { month: 'short', timeZone: 'UTC' })).toBe('Nov')
  })

  it('make each formatter once and reuse it', () => {
    expect(numberFormat({ maximumFractionDigits: 2 })).toBe(numberFormat({ maximumFractionDigits: 2 }))
    expect(numberFormat()).not.toBe(numberFormat({ maximumFractionDigits: 2 }))
    expect(dateFormat({ dateStyle: 'medium' })).toBe(dateFormat({ dateStyle: 'medium' }))
    expect(dateFormat({ dateStyle: 'medium' })).not.toBe(dateFormat({ dateStyle: 'long' }))
  })
})
