import type { Kysely } from 'kysely'

// Frozen in time: later changes go in new migrations, never here.
export async function up(db: Kysely<any>): Promise<void> {
  // Connect Discord's PKCE (RFC 7636): the S256 challenge of the attempt, beside its hashed state. It
  // is itself a hash: the verifier that redeems Discord's code is derived from the state with the
  // server's key when the member comes back, and is never stored.
  await db.schema.alterTable('discord_oauth_states').addColumn('code_challenge', 'text').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('discord_oauth_states').dropColumn('code_challenge').execute()
}
