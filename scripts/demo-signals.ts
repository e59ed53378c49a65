import type { SignalInput } from '@edgeclub/shared'
import { buildApp } from '../apps/api/src/app'
import type { Config } from '../apps/api/src/config'
import { hashPassword } from '../apps/api/src/modules/auth/passwords'

/**
 * A short signal history for `npm run demo`, so the public record is alive at once: three weeks of
 * picks and trading signals, published and settled through the same service calls an analyst's
 * clicks make, with a clock the demo moves (a pick is settled only after it starts). A few stay
 * live. Runs once, on a database whose ledger is empty; the live demo afterwards uses real time.
 */

export const DEMO_ANALYST = { email: 'analyst@edgeclub.demo', password: 'Demo$Analyst2026' }

const HOUR = 3_600_000
const DAY = 24 * HOUR

type Pick = Extract<SignalInput, { kind: 'pick' }>
type Trade = Extract<SignalInput, { kind: 'signal' }>

interface Past {
  daysAgo: number
  signal: Omit<Pick, 'startsAt'> | Omit<Trade, 'expiresAt'>
  outcome: { result: 'won' | 'lost' | 'push' } | { exitPrice: number } | { void: string }
}

const pick = (fields: Omit<Pick, 'kind' | 'startsAt'>): Omit<Pick, 'startsAt'> => ({
  kind: 'pick',
  ...fields,
})
const trade = (fields: Omit<Trade, 'kind' | 'expiresAt'>): Omit<Trade, 'expiresAt'> => ({
  kind: 'signal',
  ...fields,
})

const HISTORY: Past[] = [
  {
    daysAgo: 21,
    signal: pick({
      sport: 'NFL',
      league: 'Week 10',
      event: 'Chiefs vs Broncos',
      market: 'spread',
      selection: 'Chiefs -6.5',
      odds: 1.91,
      stake: 1,
    }),
    outcome: { result: 'won' },
  },
  {
    daysAgo: 20,
    signal: pick({
      sport: 'NBA',
      event: 'Celtics vs Heat',
      market: 'total',
      selection: 'Over 218.5',
      odds: 1.87,
      stake: 1,
    }),
    outcome: { result: 'lost' },
  },
  {
    daysAgo: 19,
    signal: trade({
      instrument: 'BTC',
      direction: 'long',
      entry: 64_000,
      target: 67_500,
      stop: 62_500,
      stake: 1,
      analysis: 'Reclaim of the weekly open with rising volume.',
    }),
    outcome: { exitPrice: 67_500 },
  },
  {
    daysAgo: 18,
    signal: pick({
      sport: 'soccer',
      league: 'Premier League',
      event: 'Arsenal vs Chelsea',
      market: 'moneyline',
      selection: 'Arsenal',
      odds: 2.1,
      stake: 1.5,
    }),
    outcome: { result: 'won' },
  },
  {
    daysAgo: 16,
    signal: pick({
      sport: 'NHL',
      event: 'Rangers vs Bruins',
      market: 'moneyline',
      selection: 'Bruins',
      odds: 2.25,
      stake: 1,
    }),
    outcome: { result: 'lost' },
  },
  {
    daysAgo: 15,
    signal: pick({
      sport: 'UFC',
      event: 'UFC Fight Night: main event',
      market: 'prop',
      selection: 'Fight goes the distance',
      odds: 2.4,
      stake: 0.5,
    }),
    outcome: { result: 'won' },
  },
  {
    daysAgo: 14,
    signal: trade({
      instrument: 'ETH',
      direction: 'short',
      entry: 3_650,
      target: 3_420,
      stop: 3_760,
      stake: 1,
    }),
    outcome: { exitPrice: 3_760 },
  },
  {
    daysAgo: 12,
    signal: pick({
      sport: 'NFL',
      league: 'Week 11',
      event: 'Bills vs Dolphins',
      market: 'total',
      selection: 'Under 47.5',
      odds: 1.95,
      stake: 1,
    }),
    outcome: { result: 'push' },
  },
  {
    daysAgo: 11,
    signal: pick({
      sport: 'MLB',
      event: 'Dodgers vs Padres',
      market: 'moneyline',
      selection: 'Dodgers',
      odds: 1.72,
      stake: 2,
    }),
    outcome: { void: 'Game postponed for rain' },
  },
  {
    daysAgo: 9,
    signal: pick({
      sport: 'NBA',
      event: 'Nuggets vs Lakers',
      market: 'spread',
      selection: 'Nuggets -4',
      odds: 1.91,
      stake: 1,
    }),
    outcome: { result: 'won' },
  },
  {
    daysAgo: 7,
    signal: trade({ instrument: 'AAPL', direction: 'long', entry: 228, target: 240, stop: 222, stake: 1 }),
    outcome: { exitPrice: 231.6 },
  },
  {
    daysAgo: 5,
    signal: pick({
      sport: 'soccer',
      league: 'La Liga',
      event: 'Real Madrid vs Sevilla',
      market: 'total',
      selection: 'Over 2.5 goals',
      odds: 1.8,
      stake: 1,
    }),
    outcome: { result: 'won' },
  },
  {
    daysAgo: 3,
    signal: pick({
      sport: 'NFL',
      league: 'Week 12',
      event: 'Eagles vs Cowboys',
      market: 'spread',
      selection: 'Eagles -3',
      odds: 1.91,
      stake: 2,
    }),
    outcome: { result: 'lost' },
  },
  {
    daysAgo: 2,
    signal: trade({ instrument: 'SOL', direction: 'long', entry: 140, target: 156, stop: 134, stake: 1 }),
    outcome: { exitPrice: 156 },
  },
]

/** Live: shown on the record only as commitments until they settle. */
function live(now: number): (Pick | Trade)[] {
  return [
    {
      kind: 'pick',
      sport: 'NBA',
      event: 'Knicks vs 76ers',
      startsAt: new Date(now + 6 * HOUR).toISOString(),
      market: 'spread',
      selection: 'Knicks +2.5',
      odds: 1.93,
      stake: 1,
      analysis: 'Rest advantage and a strong home defence.',
    },
    {
      kind: 'pick',
      sport: 'NFL',
      league: 'Week 13',
      event: 'Packers vs Lions',
      startsAt: new Date(now + 2 * DAY).toISOString(),
      market: 'moneyline',
      selection: 'Lions',
      odds: 1.65,
      stake: 1.5,
    },
    {
      kind: 'signal',
      instrument: 'ETH',
      direction: 'long',
      entry: 3_450,
      target: 3_900,
      stop: 3_250,
      expiresAt: new Date(now + 5 * DAY).toISOString(),
      stake: 1,
    },
  ]
}

/** Seeds the history once (a non-empty ledger is left alone). Returns whether it seeded. */
export async function seedDemoSignals(config: Config): Promise<boolean> {
  const realNow = Date.now()
  let at = realNow - 22 * DAY
  const clock = { now: () => new Date(at) }
  const app = await buildApp({ ...config, webRoot: undefined }, { clock })
  try {
    const { signals, signalsRepo, authRepo } = app.services
    if (await signalsRepo.head()) return false

    let analyst = await authRepo.findUserByEmail(DEMO_ANALYST.email)
    if (!analyst) {
      analyst = await authRepo.insertUser({
        email: DEMO_ANALYST.email,
        email_normalized: DEMO_ANALYST.email,
        password_hash: await hashPassword(DEMO_ANALYST.password),
        first_name: 'Dana',
        last_name: 'Analyst',
        discord_username: 'dana_picks',
        trading_interests: 'sports-betting',
        email_updates: false,
        agreed_terms_at: clock.now(),
        age_confirmed_at: clock.now(),
        password_changed_at: clock.now(),
      })
      if (!analyst) throw new Error('could not create the demo analyst')
      await authRepo.updateUser(analyst.id, { role: 'analyst' })
    }
    const author = { id: analyst.id }

    for (const past of HISTORY) {
      at = realNow - past.daysAgo * DAY
      const published = await signals.publish(
        author,
        past.signal.kind === 'pick'
          ? ({ ...past.signal, startsAt: new Date(at + 5 * HOUR).toISOString() } as Pick)
          : ({ ...past.signal, expiresAt: new Date(at + 3 * DAY).toISOString() } as Trade),
      )
      if ('void' in past.outcome) {
        // Called off before the start: an ordinary void, not a late one.
        at += HOUR
        await signals.void(author, published.id, { reason: past.outcome.void })
        continue
      }
      // The game has started (or the trade moved) by the time the analyst settles.
      at += 9 * HOUR
      const closing =
        'result' in past.outcome && past.signal.kind === 'pick'
          ? // The analyst notes where the line closed: mostly shorter than the price taken.
            {
              closingOdds:
                Math.round((past.signal.odds - (past.daysAgo % 3 === 0 ? -0.03 : 0.05)) * 100) / 100,
            }
          : {}
      await signals.settle(author, published.id, { ...past.outcome, ...closing })
    }
    at = realNow
    for (const input of live(realNow)) await signals.publish(author, input)
    return true
  } finally {
    await app.close()
  }
}
