import { type Kysely, sql, type Transaction, type Updateable } from 'kysely'
import { transactionRunner } from '../../db/transaction'
import type { DB, TelegramAccountRow, TelegramChatMembersTable, TelegramMembersTable } from '../../db/types'

type Executor = Kysely<DB> | Transaction<DB>

/** One token bucket: how many sends it holds at most, and how many it regains a second. */
export interface SendBucket {
  scope: string
  capacity: number
  perSecond: number
}

export function createTelegramRepository(db: Kysely<DB>) {
  return {
    transaction: transactionRunner(db),

    // ---- Connect Telegram: start tokens --------------------------------------------------------

    insertToken(token: { hash: string; userId: string; now: Date; expiresAt: Date }, trx: Executor = db) {
      return trx
        .insertInto('telegram_connect_tokens')
        .values({
          token_hash: token.hash,
          user_id: token.userId,
          created_at: token.now,
          expires_at: token.expiresAt,
        })
        .execute()
    },

    findToken(hash: string, trx: Executor = db) {
      return trx
        .selectFrom('telegram_connect_tokens')
        .selectAll()
        .where('token_hash', '=', hash)
        .executeTakeFirst()
    },

    /** Marks the token used unless it was already: only one caller wins. */
    async useToken(id: string, now: Date, trx: Executor = db): Promise<boolean> {
      const used = await trx
        .updateTable('telegram_connect_tokens')
        .set({ used_at: now })
        .where('id', '=', id)
        .where('used_at', 'is', null)
        .returning('id')
        .executeTakeFirst()
      return Boolean(used)
    },

    async countTokensSince(userId: string, since: Date): Promise<number> {
      const row = await db
        .selectFrom('telegram_connect_tokens')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('user_id', '=', userId)
        .where('created_at', '>', since)
        .executeTakeFirstOrThrow()
      return Number(row.n)
    },

    deleteTokensBefore(userId: string, before: Date) {
      return db
        .deleteFrom('telegram_connect_tokens')
        .where('user_id', '=', userId)
        .where('created_at', '<', before)
        .execute()
    },

    // ---- accounts ------------------------------------------------------------------------------

    async memberFirstName(userId: string, trx: Executor = db): Promise<string | undefined> {
      const row = await trx
        .selectFrom('users')
        .select('first_name')
        .where('id', '=', userId)
        .executeTakeFirst()
      return row?.first_name
    },

    findAccount(userId: string, trx: Executor = db): Promise<TelegramAccountRow | undefined> {
      return trx
        .selectFrom('telegram_accounts')
        .selectAll()
        .where('user_id', '=', userId)
        .where('disconnected_at', 'is', null)
        .executeTakeFirst()
    },

    findByTelegramId(telegramUserId: string, trx: Executor = db): Promise<TelegramAccountRow | undefined> {
      return trx
        .selectFrom('telegram_accounts')
        .selectAll()
        .where('telegram_user_id', '=', telegramUserId)
        .where('disconnected_at', 'is', null)
        .executeTakeFirst()
    },

    insertAccount(
      account: {
        userId: string
        telegramUserId: string
        username: string | null
        firstName: string
        /** It was another member's until now. */
        moved: boolean
        now: Date
      },
      trx: Executor = db,
    ): Promise<TelegramAccountRow> {
      return trx
        .insertInto('telegram_accounts')
        .values({
          user_id: account.userId,
          telegram_user_id: account.telegramUserId,
          username: account.username,
          first_name: account.firstName,
          moved: account.moved,
          connected_at: account.now,
        })
        .returningAll()
        .executeTakeFirstOrThrow()
    },

    /** The first sync after Start says so; true for the one caller that gets to. */
    async claimWelcome(id: string, now: Date): Promise<boolean> {
      const claimed = await db
        .updateTable('telegram_accounts')
        .set({ welcomed_at: now })
        .where('id', '=', id)
        .where('welcomed_at', 'is', null)
        .returning('id')
        .executeTakeFirst()
      return Boolean(claimed)
    },

    updateNames(id: string, names: { username: string | null; firstName: string }, trx: Executor = db) {
      return trx
        .updateTable('telegram_accounts')
        .set({ username: names.username, first_name: names.firstName })
        .where('id', '=', id)
        .execute()
    },

    disconnect(id: string, now: Date, trx: Executor = db) {
      return trx
        .updateTable('telegram_accounts')
        .set({ disconnected_at: now })
        .where('id', '=', id)
        .where('disconnected_at', 'is', null)
        .returningAll()
        .executeTakeFirst()
    },

    // ---- the member's standing (reminders, ban) -----------------------------------------------

    findStanding(userId: string, trx: Executor = db) {
      return trx.selectFrom('telegram_members').selectAll().where('user_id', '=', userId).executeTakeFirst()
    },

    async saveStanding(
      userId: string,
      changes: Updateable<TelegramMembersTable>,
      now: Date,
      trx: Executor = db,
    ): Promise<void> {
      await trx
        .insertInto('telegram_members')
        .values({ user_id: userId, updated_at: now, ...changes } as never)
        .onConflict((oc) => oc.column('user_id').doUpdateSet({ ...changes, updated_at: now }))
        .execute()
    },

    // ---- chat memberships ----------------------------------------------------------------------

    listChatMembers(userId: string, trx: Executor = db) {
      return trx.selectFrom('telegram_chat_members').selectAll().where('user_id', '=', userId).execute()
    },

    async saveChatMember(
      userId: string,
      placeId: string,
      changes: Updateable<TelegramChatMembersTable> & Pick<TelegramChatMembersTable, 'state'>,
      now: Date,
      trx: Executor = db,
    ): Promise<void> {
      await trx
        .insertInto('telegram_chat_members')
        .values({ user_id: userId, place_id: placeId, updated_at: now, ...changes } as never)
        .onConflict((oc) => oc.columns(['user_id', 'place_id']).doUpdateSet({ ...changes, updated_at: now }))
        .execute()
    },

    /**
     * Records a new personal link unless the member already has one for the chat; answers the link
     * that is the member's now (theirs from before when another sync was first).
     */
    async claimInviteLink(
      userId: string,
      placeId: string,
      telegramUserId: string,
      link: string,
      now: Date,
    ): Promise<string> {
      const claimed = await db
        .insertInto('telegram_chat_members')
        .values({
          user_id: userId,
          place_id: placeId,
          telegram_user_id: telegramUserId,
          state: 'link-sent',
          invite_link: link,
          updated_at: now,
        })
        .onConflict((oc) =>
          oc
            .columns(['user_id', 'place_id'])
            .doUpdateSet({
              state: 'link-sent',
              telegram_user_id: telegramUserId,
              invite_link: link,
              updated_at: now,
            })
            .where('telegram_chat_members.invite_link', 'is', null),
        )
        .returning('invite_link')
        .executeTakeFirst()
      if (claimed?.invite_link) return claimed.invite_link
      const current = await db
        .selectFrom('telegram_chat_members')
        .select('invite_link')
        .where('user_id', '=', userId)
        .where('place_id', '=', placeId)
        .executeTakeFirstOrThrow()
      return current.invite_link ?? link
    },

    /** Members the periodic sweep looks at: a live account, or a chat record to settle. */
    async syncCandidates(): Promise<string[]> {
      const rows = await db
        .selectFrom('telegram_accounts')
        .select('user_id')
        .where('disconnected_at', 'is', null)
        .union(
          db
            .selectFrom('telegram_chat_members')
            .select('user_id')
            .where('state', 'in', ['member', 'link-sent']),
        )
        .execute()
      return rows.map((row) => row.user_id)
    },

    /** Everyone a Telegram broadcast goes to: live accounts of members neither disabled nor banned. */
    broadcastRecipients(trx: Executor = db) {
      return trx
        .selectFrom('telegram_accounts')
        .innerJoin('users', 'users.id', 'telegram_accounts.user_id')
        .leftJoin('telegram_members', 'telegram_members.user_id', 'telegram_accounts.user_id')
        .select(['telegram_accounts.user_id', 'telegram_accounts.telegram_user_id'])
        .where('telegram_accounts.disconnected_at', 'is', null)
        .where('users.disabled_at', 'is', null)
        .where('telegram_members.banned_at', 'is', null)
        .execute()
    },

    // ---- updates: each is handled once ---------------------------------------------------------

    /** Records the update as handled in the caller's transaction; false when it was already. */
    async claimUpdate(updateId: number, type: string, now: Date, trx: Executor): Promise<boolean> {
      const inserted = await trx
        .insertInto('webhook_events')
        .values({
          id: `telegram:${updateId}`,
          provider: 'telegram',
          type,
          received_at: now,
          processed_at: now,
        })
        .onConflict((oc) => oc.column('id').doNothing())
        .returning('id')
        .executeTakeFirst()
      return Boolean(inserted)
    },

    // ---- flood limits ----------------------------------------------------------------------------

    /**
     * Takes one send from every bucket, or none: answers 0 when taken, else how many milliseconds to
     * wait until all of them hold one. The buckets live in the database, so every instance shares them.
     */
    async takeSend(buckets: readonly SendBucket[]): Promise<number> {
      return transactionRunner(db)(async (trx) => {
        await trx
          .insertInto('telegram_send_buckets')
          .values(
            buckets.map((bucket) => ({
              scope: bucket.scope,
              tokens: bucket.capacity,
              refilled_at: sql<Date>`clock_timestamp()`,
            })),
          )
          .onConflict((oc) => oc.column('scope').doNothing())
          .execute()
        const rows = await trx
          .selectFrom('telegram_send_buckets')
          .selectAll()
          .where(
            'scope',
            'in',
            buckets.map((bucket) => bucket.scope),
          )
          .orderBy('scope')
          .forUpdate()
          .execute()
        // The time is read once the rows are locked, from the one clock every instance shares:
        // a sender that read its own clock before waiting for the lock would count an interval
        // twice, and a business clock moved by a test clock has nothing to do with Telegram's pace.
        const { now } = await sql<{ now: Date }>`select clock_timestamp() as now`
          .execute(trx)
          .then((result) => result.rows[0] as { now: Date })
        const nowMs = new Date(now).valueOf()
        let waitMs = 0
        const refilled = buckets.map((bucket) => {
          const row = rows.find((candidate) => candidate.scope === bucket.scope)
          const elapsed = row ? Math.max(0, nowMs - new Date(row.refilled_at).valueOf()) / 1000 : 0
          const tokens = Math.min(
            bucket.capacity,
            (row?.tokens ?? bucket.capacity) + elapsed * bucket.perSecond,
          )
          if (tokens < 1) waitMs = Math.max(waitMs, ((1 - tokens) / bucket.perSecond) * 1000)
          return { scope: bucket.scope, tokens }
        })
        if (waitMs > 0) return Math.ceil(waitMs)
        for (const bucket of refilled)
          await trx
            .updateTable('telegram_send_buckets')
            .set({ tokens: bucket.tokens - 1, refilled_at: new Date(nowMs) })
            .where('scope', '=', bucket.scope)
            .execute()
        return 0
      })
    },

    /** Telegram said to wait: the bucket is emptied for that long (every instance waits too). */
    async holdBucket(bucket: SendBucket, seconds: number): Promise<void> {
      const tokens = 1 - seconds * bucket.perSecond
      await db
        .insertInto('telegram_send_buckets')
        .values({ scope: bucket.scope, tokens, refilled_at: sql<Date>`clock_timestamp()` })
        .onConflict((oc) =>
          oc.column('scope').doUpdateSet({ tokens, refilled_at: sql<Date>`clock_timestamp()` }),
        )
        .execute()
    },
  }
}
export type TelegramRepository = ReturnType<typeof createTelegramRepository>
