import { describe, expect, it } from 'vitest'
import type { UserRow } from '../../db/types'
import { createSessionCache } from './session-cache'

const user = (id: string) => ({ id }) as UserRow

describe('session cache', () => {
  it('reads a session again after its lifetime, and entries stored together expire spread over its last quarter', async () => {
    let clock = 0
    let draw = 0
    // Entry n draws n/8: lifetimes 30 s, 29.06 s ... 23.4 s, each within a quarter of the TTL.
    const cache = createSessionCache({ ttlMs: 30_000, now: () => clock, random: () => (draw++ % 8) / 8 })
    const reads: string[] = []
    const get = (n: number) =>
      cache.get(`session-${n}`, `user-${n}`, async () => {
        reads.push(`session-${n}`)
        return user(`user-${n}`)
      })
    for (let n = 0; n < 8; n++) await get(n)
    expect(reads).toHaveLength(8)

    clock = 22_499 // under three quarters of the TTL: every entry still fresh
    for (let n = 0; n < 8; n++) await get(n)
    expect(reads).toHaveLength(8)

    clock = 27_000 // some expired, not all
    for (let n = 0; n < 8; n++) await get(n)
    const reread = reads.length - 8
    expect(reread).toBeGreaterThan(0)
    expect(reread).toBeLessThan(8)

    clock = 60_000 // past the full lifetime of every entry (the ones read again at 27 s too)
    reads.length = 0
    for (let n = 0; n < 8; n++) await get(n)
    expect(reads).toHaveLength(8)
  })

  it('never serves a session after its user was forgotten', async () => {
    const cache = createSessionCache()
    let loads = 0
    const load = async () => {
      loads++
      return user('user-1')
    }
    await cache.get('session-1', 'user-1', load)
    await cache.get('session-1', 'user-1', load)
    expect(loads).toBe(1)
    cache.heard('user-1')
    await cache.get('session-1', 'user-1', load)
    expect(loads).toBe(2)
  })
})
