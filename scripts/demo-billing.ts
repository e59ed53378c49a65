import { buildApp } from '../apps/api/src/app'
import type { Config } from '../apps/api/src/config'

/** What `npm run demo` sets up to try the revenue levers offline, as an owner would in the console. */
export const DEMO_TRIAL = { planSlug: 'monthly', days: 7 } as const
export const DEMO_PROMO = { code: 'WELCOME20', percentOff: 20 } as const

/**
 * A free trial and a promo code for `npm run demo`: Monthly gets a 7-day trial (the card is saved at
 * checkout and charged when the trial ends) and WELCOME20 takes 20% off anyone's first payment.
 * Runs once: a database that has the code already is left as the owner left it.
 */
export async function seedDemoBilling(
  config: Config,
): Promise<{ seeded: boolean; trialPlan: string | null }> {
  const app = await buildApp({ ...config, webRoot: undefined })
  try {
    const { promos, plansAdmin } = app.services
    const { items } = await plansAdmin.list({
      page: 1,
      limit: 100,
      sortBy: 'sortOrder',
      sortOrder: 'asc',
      includeArchived: false,
    })
    const monthly = items.find((plan) => plan.slug === DEMO_TRIAL.planSlug)
    if ((await promos.list()).some((code) => code.code === DEMO_PROMO.code))
      return { seeded: false, trialPlan: monthly && monthly.trialDays > 0 ? monthly.name : null }
    if (monthly && monthly.trialDays === 0)
      await plansAdmin.update(monthly.id, { trialDays: DEMO_TRIAL.days })
    await promos.create(
      { code: DEMO_PROMO.code, percentOff: DEMO_PROMO.percentOff, duration: 'once', audience: 'anyone' },
      null,
    )
    return { seeded: true, trialPlan: monthly?.name ?? null }
  } finally {
    await app.close()
  }
}
