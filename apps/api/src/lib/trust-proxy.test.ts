import { describe, expect, it } from 'vitest'
import { trustProxyOption } from './trust-proxy'

describe('trustProxyOption with a hop count', () => {
  it('believes the first hop only from loopback and private addresses, however often and however many are asked', () => {
    const trust = trustProxyOption(1) as (address: string, hop: number) => boolean
    // Asked many times each (the answers are remembered), and past the remembered set's bound.
    for (let round = 0; round < 3; round++) {
      for (const address of ['127.0.0.1', '10.1.2.3', '::1', '::ffff:192.168.1.9', 'fd00::5'])
        expect(trust(address, 0), address).toBe(true)
      for (const address of ['203.0.113.7', '::ffff:198.51.100.2', '2001:db8::1'])
        expect(trust(address, 0), address).toBe(false)
      for (let i = 0; i < 1_500; i++) expect(trust(`198.18.${i >> 8}.${i & 255}`, 0)).toBe(false)
      for (let i = 0; i < 1_500; i++) expect(trust(`10.9.${i >> 8}.${i & 255}`, 0)).toBe(true)
    }
    // Beyond the configured hops nothing is believed.
    expect(trust('127.0.0.1', 1)).toBe(false)
  })
})
