import type { PublicUser } from '@edgeclub/shared'
import type { UserRow } from '../../db/types'

/** A member as the API shows them to themselves (and to admins): never the password hash or tokens. */
export function toPublicUser(row: UserRow): PublicUser {
  return {
    id: row.id,
    _id: row.id,
    email: row.email,
    firstName: row.first_name,
    lastName: row.last_name,
    discordUsername: row.discord_username,
    role: row.role,
    tradingInterests: row.trading_interests,
    emailUpdates: row.email_updates,
    createdAt: new Date(row.created_at).toISOString(),
  }
}
