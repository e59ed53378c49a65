import type { Insertable, Kysely } from 'kysely'
import type { ContactMessagesTable, DB } from '../../db/types'

export function createContactRepository(db: Kysely<DB>) {
  return {
    async insert(message: Insertable<ContactMessagesTable>): Promise<{ id: string }> {
      return db.insertInto('contact_messages').values(message).returning('id').executeTakeFirstOrThrow()
    },
  }
}
export type ContactRepository = ReturnType<typeof createContactRepository>
