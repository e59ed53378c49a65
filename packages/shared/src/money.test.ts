import { describe, expect, it } from 'vitest'
import { formatMoney, formatUsd } from './money'

describe('money formatting', () => {
  it('writes dollars exactly as Intl.NumberFormat would, without making one', () => {
    const intl = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' })
    const cents = Array.from({ length: 50_001 }, (_, k) => k / 100)
    const thousandths = Array.from({ length: 20_001 }, (_, k) => k / 1000)
    const large = [
      999.995,
      1e6 + 0.005,
      123456789.125,
      2 ** 53,
      1e20,
      1e21,
      1e25,
      Number.NaN,
      Number.POSITIVE_INFINITY,
    ]
    for (const value of [...cents, ...thousandths, ...large].flatMap((v) => [v, -v]))
      expect(formatMoney(value, 'usd'), String(value)).toBe(intl.format(value))
    let seed = 11
    const random = () => {
      seed = (seed * 16807) % 2147483647
      return seed / 2147483647
    }
    const whole = new Intl.NumberFormat('en-US', {
      style: 'currency',
      currency: 'USD',
      maximumFractionDigits: 0,
    })
    for (const scale of [1, 1e3, 1e6, 1e9, 1e12, 1e15, 1e18]) {
      for (let i = 0; i < 500; i++) {
        const value = random() * scale
        expect(formatMoney(value, 'USD'), String(value)).toBe(intl.format(value))
        expect(formatUsd(value, 0), String(value)).toBe(whole.format(value))
      }
    }
  })

  it('writes other currencies with Intl', () => {
    expect(formatMoney(5, 'EUR')).toBe('€5.00')
    expect(formatMoney(1234.5, 'gbp')).toBe('£1,234.50')
    expect(formatMoney(1000, 'JPY')).toBe('¥1,000')
  })
})
