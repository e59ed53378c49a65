import type { UserRow } from '../../db/types'

/** The channel on which the database announces a changed user or session (see the 2026-11-24-02 migration). */
export const AUTH_CHANNEL = 'auth_changed'

const SESSION_CACHE_TTL_MS = 30_000
const MAX_ENTRIES = 50_000

/**
 * The signed-in user behind each live session, kept for a few seconds so a member's every request
 * does not read the session and user rows again. It is never the only guard:
 * - this process forgets a user as soon as it changed them (logout, revocation, profile, role,
 *   disabling), after the change committed;
 * - every change to a users or sessions row, by any process, is announced by a trigger on
 *   AUTH_CHANNEL (LISTEN/NOTIFY), and every instance forgets that user on hearing it;
 * - a listener that lost its connection may have missed announcements: it forgets everything;
 * - whatever happens, an entry is read again from the database after SESSION_CACHE_TTL_MS, or up to a
 *   quarter sooner: entries stored together (a restart under load, a burst of sign-ins) would all
 *   expire in the same instant, and every request of that moment would read its session again.
 * A read that started before a change must not store what it read: every forget moves an epoch, and a
 * read stores its row only if the epoch is the one it started in.
 */
export function createSessionCache(
  options: { ttlMs?: number; now?: () => number; random?: () => number } = {},
) {
  const ttlMs = options.ttlMs ?? SESSION_CACHE_TTL_MS
  const now = options.now ?? Date.now
  const random = options.random ?? Math.random
  const entries = new Map<string, { userId: string; user: UserRow; expires: number }>()
  let epoch = 0

  const forgetUser = (userId: string): void => {
    epoch++
    for (const [sessionId, entry] of entries) if (entry.userId === userId) entries.delete(sessionId)
  }
  const forgetAll = (): void => {
    epoch++
    entries.clear()
  }

  return {
    /** The user of a live session, from memory while fresh, else from `load` (undefined: not live). */
    async get(
      sessionId: string,
      userId: string,
      load: () => Promise<UserRow | undefined>,
    ): Promise<UserRow | undefined> {
      const hit = entries.get(sessionId)
      if (hit && hit.userId === userId && now() < hit.expires) return hit.user
      if (hit) entries.delete(sessionId)
      const started = epoch
      const user = await load()
      if (user && epoch === started) {
        if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value as string)
        entries.set(sessionId, { userId, user, expires: now() + ttlMs * (1 - random() / 4) })
      }
      return user
    },

    /** Forget every session of a user (their row or one of their sessions changed). */
    forgetUser,

    forgetAll,

    /** What a NOTIFY on AUTH_CHANNEL carries: a user id, or null when announcements may have been missed. */
    heard: (payload: string | null): void => {
      if (payload) forgetUser(payload)
      else forgetAll()
    },

    size: () => entries.size,
  }
}
export type SessionCache = ReturnType<typeof createSessionCache>
