import type { Kysely } from 'kysely'
import type { DB, NewPlanRow } from './types'

/**
 * The four plans a new EdgeClub starts with. Twelve monthly payments cost more than the yearly
 * plan, so the pricing page shows the yearly saving.
 */
const SEED_PLANS: NewPlanRow[] = [
  {
    name: 'Weekly',
    slug: 'weekly',
    description: 'Try the full signal room for a week before you commit.',
    price_minor: 1499,
    currency: 'USD',
    interval: 'week',
    interval_count: 1,
    features: JSON.stringify([
      'Daily AI sports picks (NFL, NBA, MLB, NHL, soccer, UFC)',
      'Stock and crypto trading signals',
      'Private Discord community access',
      '24/7 support',
    ]),
    is_popular: false,
    sort_order: 1,
  },
  {
    name: 'Monthly',
    slug: 'monthly',
    description: 'Everything EdgeClub offers, billed monthly. Cancel any time.',
    price_minor: 3999,
    currency: 'USD',
    interval: 'month',
    interval_count: 1,
    features: JSON.stringify([
      'Daily AI sports picks (NFL, NBA, MLB, NHL, soccer, UFC)',
      'Stock and crypto trading signals',
      'Fantasy football projections',
      'Private Discord community access',
      'Live broadcasts with tips',
      '24/7 support',
    ]),
    is_popular: true,
    sort_order: 2,
  },
  {
    name: 'Yearly',
    slug: 'yearly',
    description: 'A full season of picks and signals at the best recurring price.',
    price_minor: 29999,
    currency: 'USD',
    interval: 'year',
    interval_count: 1,
    features: JSON.stringify([
      'Everything in Monthly',
      'Real-time analytics dashboard',
      'Fitness, life and capital-creation programs',
      'Priority support',
      '30-day money-back guarantee',
    ]),
    is_popular: false,
    sort_order: 3,
  },
  {
    name: 'Lifetime',
    slug: 'lifetime',
    description: 'Pay once, keep your seat in the club for good.',
    price_minor: 79999,
    currency: 'USD',
    interval: 'lifetime',
    interval_count: 1,
    features: JSON.stringify([
      'Everything in Yearly, forever',
      'Founding member role on Discord',
      'Early access to new signal products',
      'One-to-one onboarding call',
    ]),
    is_popular: false,
    sort_order: 4,
  },
]

/** Seeds the plans on the first start only: once any plan exists, the operator owns the list. */
export async function seedPlans(db: Kysely<DB>): Promise<number> {
  const existing = await db
    .selectFrom('plans')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirst()
  if (Number(existing?.count ?? 0) > 0) return 0
  const inserted = await db
    .insertInto('plans')
    .values(SEED_PLANS)
    .onConflict((oc) => oc.column('slug').doNothing())
    .execute()
  return inserted.reduce((sum, result) => sum + Number(result.numInsertedOrUpdatedRows ?? 0), 0)
}
