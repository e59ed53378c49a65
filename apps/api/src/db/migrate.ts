import { createHash } from 'node:crypto'
import { type Kysely, type Migration, Migrator, sql } from 'kysely'
import * as plansAndContact from './migrations/2026-11-22-01-plans-and-contact'
import * as accounts from './migrations/2026-11-22-02-accounts'
import * as payments from './migrations/2026-11-22-03-payments'
import * as adminAndCommunity from './migrations/2026-11-22-04-admin-and-community'
import * as crypto from './migrations/2026-11-22-05-crypto'
import * as outbox from './migrations/2026-11-23-01-outbox'
import * as discordOauth from './migrations/2026-11-24-01-discord-oauth'
import * as performance from './migrations/2026-11-24-02-performance'
import * as signals from './migrations/2026-11-24-03-signals'
import * as rollupsNaming from './migrations/2026-11-26-01-rollups-naming'
import * as billingLevers from './migrations/2026-11-26-02-billing-levers'
import * as mailDeliveries from './migrations/2026-11-26-03-mail-deliveries'
import * as discordPkce from './migrations/2026-11-26-04-discord-pkce'
import * as broadcasts from './migrations/2026-11-26-05-broadcasts'
import * as placesAndTelegram from './migrations/2026-11-26-06-places-and-telegram'
import * as recordLog from './migrations/2026-11-26-07-record-log'
import * as siteClaims from './migrations/2026-11-26-08-site-claims'
import * as push from './migrations/2026-11-26-09-push'
import * as searchStatistics from './migrations/2026-11-27-01-search-statistics'

/** Listed here rather than read from disk, so the same list runs under tsx, tests and bundlers. */
const migrations: Record<string, Migration> = {
  '2026-11-22-01-plans-and-contact': plansAndContact,
  '2026-11-22-02-accounts': accounts,
  '2026-11-22-03-payments': payments,
  '2026-11-22-04-admin-and-community': adminAndCommunity,
  '2026-11-22-05-crypto': crypto,
  '2026-11-23-01-outbox': outbox,
  '2026-11-24-01-discord-oauth': discordOauth,
  '2026-11-24-02-performance': performance,
  '2026-11-24-03-signals': signals,
  '2026-11-26-01-rollups-naming': rollupsNaming,
  '2026-11-26-02-billing-levers': billingLevers,
  '2026-11-26-03-mail-deliveries': mailDeliveries,
  '2026-11-26-04-discord-pkce': discordPkce,
  '2026-11-26-05-broadcasts': broadcasts,
  '2026-11-26-06-places-and-telegram': placesAndTelegram,
  '2026-11-26-07-record-log': recordLog,
  '2026-11-26-08-site-claims': siteClaims,
  '2026-11-26-09-push': push,
  '2026-11-27-01-search-statistics': searchStatistics,
}

/**
 * What a database built from these migrations contains: their names and their code (a migration
 * edited before it was released changes it too).
 */
export const MIGRATIONS_FINGERPRINT = Object.entries(migrations).map(
  ([name, migration]) => `${name}:${hash(migration.up.toString())}`,
)

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 12)
}

export async function migrateToLatest(db: Kysely<any>): Promise<void> {
  // Most starts find every migration run: one read says so (Kysely's migrator first inspects the
  // catalog for its tables, the slowest query of a start on the embedded database).
  if (await allApplied(db)) return
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    // A migration whose date-stamped name sorts before one already run (reserved names land later)
    // still runs, instead of stopping the start of a database that has the later one.
    allowUnorderedMigrations: true,
  })
  const { error, results } = await migrator.migrateToLatest()
  const failed = results?.find((result) => result.status === 'Error')
  if (error || failed) {
    const name = failed ? ` (${failed.migrationName})` : ''
    throw new Error(
      `Database migration failed${name}: ${error instanceof Error ? error.message : String(error)}`,
    )
  }
}

/** Whether the migrations table lists every migration this code has (false where it does not exist). */
async function allApplied(db: Kysely<any>): Promise<boolean> {
  const { rows: present } = await sql<{ table: string | null }>`
    select to_regclass('kysely_migration')::text as table`.execute(db)
  if (!present[0]?.table) return false
  const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db)
  const applied = new Set(rows.map((row) => row.name))
  return Object.keys(migrations).every((name) => applied.has(name))
}
