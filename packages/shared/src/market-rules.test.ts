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
