import {
  type Expression,
  type ExpressionBuilder,
  expressionBuilder,
  type RawBuilder,
  type SqlBool,
  sql,
} from 'kysely'
import type { DB } from '../../db/types'

/**
 * The one definition of "this subscription gives access at `now`": active and not past its end date
 * (lifetime has none), or past due while its grace period lasts. Every query that means "has access"
 * uses this expression, so the dashboard, the admin console, plan counts and Discord never disagree.
 *
 * Columns are referenced as `subscriptions.*`: use it where the subscriptions table is in scope under
 * its own name.
 */
export function hasAccessAt(eb: ExpressionBuilder<DB, 'subscriptions'>, now: Date): Expression<SqlBool> {
  return eb.or([
    eb.and([
      eb('subscriptions.status', '=', 'active'),
      eb.or([eb('subscriptions.end_date', 'is', null), eb('subscriptions.end_date', '>', now)]),
    ]),
    eb.and([eb('subscriptions.status', '=', 'past_due'), eb('subscriptions.grace_until', '>', now)]),
  ])
}

/**
 * When a subscription that gives access now stops giving it by time alone, should nothing else
 * happen to it (the same rule read forward): an active one at its end date (null: lifetime, never),
 * a past-due one when its grace period ends. Anything else that ends access is a write through the
 * access service, which announces it.
 */
export function accessUntil(): RawBuilder<Date | null> {
  return sql<Date | null>`case when subscriptions.status = 'past_due' then subscriptions.grace_until else subscriptions.end_date end`
}

/** The same rule as a fragment for raw `sql` queries (analytics) over `from subscriptions`. */
export function hasAccessSql(now: Date): Expression<SqlBool> {
  return hasAccessAt(expressionBuilder<DB, 'subscriptions'>(), now)
}
