import { createHash } from 'node:crypto'
import pg from 'pg'

/**
 * A PostgreSQL session-level advisory lock held on a connection of its own for as long as `work`
 * runs. Instances that start at once on one database take it in turn, so schema changes and the job
 * queue's setup (pg-boss creates a partition per queue: two instances doing it at once deadlock) never
 * run side by side. The lock connection has no statement timeout: the wait may be as long as another
 * instance's migration. If that connection is lost, PostgreSQL releases the lock; `work` goes on (its
 * statements run on the app's own pools) and the schema steps stay safe on their own, only no longer
 * one at a time.
 */

/** A stable 63-bit key from a name, so different locks of this app never collide by accident. */
export function advisoryKey(name: string): bigint {
  return BigInt.asIntN(64, BigInt(`0x${createHash('sha256').update(name).digest('hex').slice(0, 16)}`))
}

export async function withAdvisoryLock<T>(
  connectionString: string,
  name: string,
  work: () => Promise<T>,
  options: { connectTimeoutMs?: number; onWait?: () => void; onError?: (error: Error) => void } = {},
): Promise<T> {
  const key = advisoryKey(name).toString()
  const client = new pg.Client({
    connectionString,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    keepAlive: true,
  })
  // A lost lock connection is reported, never fatal (see above).
  client.on('error', (error) => options.onError?.(error))
  await client.connect()
  try {
    const tried = await client.query<{ locked: boolean }>(
      'select pg_try_advisory_lock($1::bigint) as locked',
      [key],
    )
    if (!tried.rows[0]?.locked) {
      options.onWait?.()
      await client.query('select pg_advisory_lock($1::bigint)', [key])
    }
    try {
      return await work()
    } finally {
      await client.query('select pg_advisory_unlock($1::bigint)', [key]).catch(() => {})
    }
  } finally {
    await client.end().catch(() => {})
  }
}
