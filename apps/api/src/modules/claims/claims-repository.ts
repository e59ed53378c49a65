import type { Kysely } from 'kysely'
import type { DB, SiteClaimsTable } from '../../db/types'

export function createClaimsRepository(db: Kysely<DB>) {
  return {
    get() {
      return db.selectFrom('site_claims').selectAll().executeTakeFirst()
    },

    async save(values: {
      members: string
      ai_accuracy: string
      win_rate: string
      track_record: string
      show_record_figures: boolean
    }): Promise<void> {
      const row: Partial<Record<keyof SiteClaimsTable, unknown>> = { ...values, updated_at: new Date() }
      await db
        .insertInto('site_claims')
        .values({ id: true, ...values })
        .onConflict((conflict) => conflict.column('id').doUpdateSet(row as never))
        .execute()
    },
  }
}
export type ClaimsRepository = ReturnType<typeof createClaimsRepository>
