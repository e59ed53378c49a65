import { describe, expect, it } from 'vitest'
import { formatPercentChange, formatUsdPrice, hasEveryCoin, placeholderPrices } from './market-rules'

describe('price formatting', () => {
  it('PRICES-16 shows 1000 or more with no decimals and thousands separators', () => {
    expect(formatUsdPrice(67432.18)).toBe('$67,432')
    expect(formatUsdPrice(1000)).toBe('$1,000')
    expect(formatUsdPrice(1234567.89)).toBe('$1,234,568')
  })

  it('PRICES-17 shows a price under 1000 with 2 decimals', () => {
    expect(formatUsdPrice(148.6)).toBe('$148.60')
    expect(formatUsdPrice(999.994)).toBe('$999.99')
    expect(formatUsdPrice(0)).toBe('$0.00')
  })

  it('writes every price exactly as Intl.NumberFormat would, without making one', () => {
    const [whole, cents] = [0, 2].map(
      (decimals) =>
        new Intl.NumberFormat('en-US', {
          style: 'currency',
          currency: 'USD',
          minimumFractionDigits: decimals,
          maximumFractionDigits: decimals,
        }),
    )
    const intl = (price: number) => (Math.abs(price) >= 1000 ? whole! : cents!).format(price)
    const edges = [0, -0, 0.004, 0.005, 0.015, 1.005, 2.675, 999.994, 999.995, 999.5, 1000, 1000.5, 1999.5]
    const magnitudes = [1e-3, 1, 1e3, 1e6, 1e9, 1e15, 1e20, 1e21, 1e25]
    let seed = 7
    const random = () => {
      seed = (seed * 16807) % 2147483647
      return seed / 2147483647
    }
    const samples = magnitudes.flatMap((scale) => Array.from({ length: 200 }, () => random() * scale))
    // Every price with three decimals up to 20 and every half dollar from 1000 to 6000: the ties.
    const thousandths = Array.from({ length: 20_001 }, (_, k) => k / 1000)
    const halves = Array.from({ length: 10_001 }, (_, k) => 1000 + k / 2)
    const values = [...edges, ...samples, ...thousandths, ...halves, Number.NaN, Number.POSITIVE_INFINITY]
    for (const value of [...values, ...values.map((v) => -v)])
      expect(formatUsdPrice(value), String(value)).toBe(intl(value))
  })

  it('PRICES-03 shows the change with 1 decimal and a plus sign when non-negative', () => {
    expect(formatPercentChange(2.41)).toBe('+2.4%')
    expect(formatPercentChange(0)).toBe('+0.0%')
    expect(formatPercentChange(-1.27)).toBe('-1.3%')
  })

  it('PRICES-13 accepts a response only when bitcoin, ethereum and solana are all present', () => {
    expect(hasEveryCoin([{ id: 'bitcoin' }, { id: 'ethereum' }, { id: 'solana' }])).toBe(true)
    expect(hasEveryCoin([{ id: 'bitcoin' }, { id: 'ethereum' }])).toBe(false)
  })

  it('PRICES-10 offers three placeholder items with price 0 and change 0', () => {
    const placeholders = placeholderPrices()
    expect(placeholders.map((p) => p.id)).toEqual(['bitcoin', 'ethereum', 'solana'])
    expect(placeholders.every((p) => p.current_price === 0 && p.price_change_percentage_24h === 0)).toBe(true)
  })
})
