import { z } from 'zod'
import { LEDGER_ENTRY_TYPES } from './ledger'
import { SignedHeadSchema } from './record-log-schemas'
import {
  ANALYSIS_MAX,
  DIRECTIONS,
  MARKETS,
  ODDS_MAX,
  ODDS_MIN,
  SIGNAL_KINDS,
  SIGNAL_RESULTS,
  SIGNAL_STATUSES,
  SPORTS,
  STAKE_MAX,
  STAKE_MIN,
} from './signal-rules'
import { text as safeText } from './text'

/** Sports picks and trading signals: what analysts publish, what members read, what the record counts. */

export const signalMessages = {
  startsInPast: 'The event must start in the future',
  expiresInPast: 'The expiry must be in the future',
  odds: `Decimal odds must be between ${ODDS_MIN} and ${ODDS_MAX}`,
  americanOdds: 'American odds are like +150 or -110 (at least 100 either way)',
  stake: `Stake must be between ${STAKE_MIN} and ${STAKE_MAX} units`,
  longLevels: 'For a long, the stop must be below the entry and the target above it',
  shortLevels: 'For a short, the target must be below the entry and the stop above it',
  notStarted: 'A pick can be settled only after its event has started',
  alreadySettled: 'This signal is already settled or void',
  pickNeedsResult: 'Settle a pick with won, lost or push',
  signalNeedsExit: 'Settle a trading signal with its exit price',
  notFound: 'Signal not found',
  forbidden: 'Only admins and analysts can publish and settle signals',
  closingOdds: `Closing odds are decimal odds between ${ODDS_MIN} and ${ODDS_MAX}`,
  lateVoid:
    'This signal has started: voiding it now is shown on the record as a late void. Confirm with afterStart: true',
} as const

const text = (max: number, message: string) =>
  safeText().trim().min(1, message).max(max, `At most ${max} characters`)
const optionalText = (max: number, multiline = false) =>
  safeText({ multiline }).trim().max(max, `At most ${max} characters`).optional()
const isoDate = (message: string) =>
  safeText()
    .datetime({ offset: true, message })
    .transform((value) => new Date(value).toISOString())
const decimals = (value: number, places: number) =>
  Math.abs(value * 10 ** places - Math.round(value * 10 ** places)) < 1e-6

export const PickInputSchema = z.object({
  kind: z.literal('pick'),
  sport: z.enum(SPORTS, 'Choose a sport'),
  league: optionalText(60),
  event: text(200, 'Name the event'),
  startsAt: isoDate('When does the event start?'),
  market: z.enum(MARKETS, 'Choose a market'),
  selection: text(200, 'Name the selection'),
  odds: z
    .number(signalMessages.odds)
    .min(ODDS_MIN, signalMessages.odds)
    .max(ODDS_MAX, signalMessages.odds)
    .refine((value) => decimals(value, 3), 'Odds may have at most 3 decimals'),
  stake: z
    .number(signalMessages.stake)
    .min(STAKE_MIN, signalMessages.stake)
    .max(STAKE_MAX, signalMessages.stake)
    .refine((value) => decimals(value, 2), 'Stake may have at most 2 decimals'),
  analysis: optionalText(ANALYSIS_MAX, true),
})

const price = (message: string) => z.number(message).positive(message).max(1e12, message)

export const TradeSignalInputSchema = z
  .object({
    kind: z.literal('signal'),
    instrument: safeText()
      .trim()
      .toUpperCase()
      .regex(/^[A-Z0-9.\-/]{1,20}$/, 'An instrument is a ticker such as BTC, ETH, SOL or AAPL'),
    direction: z.enum(DIRECTIONS, 'Choose long or short'),
    entry: price('Entry must be a price above 0'),
    target: price('Target must be a price above 0'),
    stop: price('Stop must be a price above 0'),
    expiresAt: isoDate('When does the signal expire?'),
    stake: z
      .number(signalMessages.stake)
      .min(STAKE_MIN, signalMessages.stake)
      .max(STAKE_MAX, signalMessages.stake)
      .refine((value) => decimals(value, 2), 'Stake may have at most 2 decimals')
      .default(1),
    analysis: optionalText(ANALYSIS_MAX, true),
  })
  .superRefine((signal, context) => {
    const ok =
      signal.direction === 'long'
        ? signal.stop < signal.entry && signal.entry < signal.target
        : signal.target < signal.entry && signal.entry < signal.stop
    if (!ok)
      context.addIssue({
        code: 'custom',
        path: ['stop'],
        message: signal.direction === 'long' ? signalMessages.longLevels : signalMessages.shortLevels,
      })
  })

/** POST /signals: a sports pick or a trading signal. Once published, none of it can change. */
export const SignalInputSchema = z.discriminatedUnion('kind', [PickInputSchema, TradeSignalInputSchema])
export type SignalInput = z.infer<typeof SignalInputSchema>
export type PickContent = z.infer<typeof PickInputSchema>
export type TradeSignalContent = z.infer<typeof TradeSignalInputSchema>
export type SignalContent = PickContent | TradeSignalContent

/** POST /signals/{id}/settle: a pick's result, or a trading signal's exit price (one of the two). */
export const SettleSignalSchema = z
  .object({
    result: z.enum(['won', 'lost', 'push'], signalMessages.pickNeedsResult).optional(),
    exitPrice: price('The exit price must be above 0').optional(),
    /** A pick's closing decimal odds (optional), for closing-line value. */
    closingOdds: z
      .number(signalMessages.closingOdds)
      .min(ODDS_MIN, signalMessages.closingOdds)
      .max(ODDS_MAX, signalMessages.closingOdds)
      .refine((value) => decimals(value, 3), 'Odds may have at most 3 decimals')
      .optional(),
  })
  .strict()
  .refine((body) => (body.result === undefined) !== (body.exitPrice === undefined), {
    message: 'Send a result for a pick, or an exit price for a trading signal',
  })
  .refine((body) => body.closingOdds === undefined || body.result !== undefined, {
    message: 'Closing odds belong to a pick',
    path: ['closingOdds'],
  })
export type SettleSignal = z.infer<typeof SettleSignalSchema>

export const VoidSignalSchema = z.object({
  reason: text(500, 'Say why the signal is void'),
  /** Required to void a pick whose event has started: the void entry says so, and the record counts it apart. */
  afterStart: z.boolean().optional(),
})

export const SignalsQuerySchema = z.object({
  cursor: z.coerce.number().int().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  kind: z.enum(SIGNAL_KINDS).optional(),
  category: safeText().trim().max(20).optional(),
})

// ---- What the API answers

const SignalBaseSchema = z.object({
  id: z.string(),
  kind: z.enum(SIGNAL_KINDS),
  /** The sport of a pick, the instrument of a trading signal. */
  category: z.string(),
  status: z.enum(SIGNAL_STATUSES),
  commitment: z.string(),
  publishedAt: z.string(),
  /** A pick's start, a trading signal's expiry. */
  startsAt: z.string().nullable(),
  expiresAt: z.string().nullable(),
  result: z.enum(SIGNAL_RESULTS).nullable(),
  profitUnits: z.number().nullable(),
  stake: z.number().nullable(),
  exitPrice: z.number().nullable(),
  settledAt: z.string().nullable(),
  voidReason: z.string().nullable(),
})

/**
 * A signal as its reader may see it: `content` is the pick or signal itself for members with access
 * (and for everyone once it is settled or void), null otherwise; `salt` only once it is public.
 */
export const SignalViewSchema = SignalBaseSchema.extend({
  content: SignalInputSchema.nullable(),
  salt: z.string().nullable(),
})
export type SignalView = z.infer<typeof SignalViewSchema>

export const SignalPageSchema = z.object({
  items: z.array(SignalViewSchema),
  nextCursor: z.number().nullable(),
})
export type SignalPage = z.infer<typeof SignalPageSchema>

/** One line of the record: counts, win rate (won ÷ (won + lost)), units staked, profit, ROI. */
export const RecordStatsSchema = z.object({
  settled: z.number().int(),
  won: z.number().int(),
  lost: z.number().int(),
  push: z.number().int(),
  closed: z.number().int(),
  void: z.number().int(),
  winRate: z.number().nullable(),
  unitsStaked: z.number(),
  profitUnits: z.number(),
  roi: z.number().nullable(),
})
export type RecordStats = z.infer<typeof RecordStatsSchema>

export const ChainHeadSchema = z.object({ seq: z.number().int(), hash: z.string() })

const RateInterval = z
  .object({ low: z.number(), high: z.number() })
  .nullable()
  .describe('A 95% interval (low, high), or null with too few settled')
const Drawdown = z
  .object({
    current: z.number().describe('How far the cumulative profit now sits below its highest point, in units'),
    maximum: z.number().describe('The largest fall from a high point to a later low, in units'),
  })
  .describe('Drawdowns of cumulative profit at the stated stakes, in units')

/** One row of a pick breakdown (by sport, market, odds band or month). */
export const PickBreakdownRowSchema = z.object({
  key: z.string().describe('The sport, market, odds band (e.g. "1.50–1.99") or month (YYYY-MM)'),
  settled: z.number().int(),
  won: z.number().int(),
  lost: z.number().int(),
  push: z.number().int(),
  void: z.number().int(),
  unitsStaked: z.number(),
  profitUnits: z.number(),
  yield: z.number().nullable().describe('Profit ÷ units staked; null below the minimum sample'),
  winRate: z.number().nullable().describe('Won ÷ (won + lost); null below the minimum sample'),
  averageOdds: z.number().nullable().describe('Mean decimal odds of the settled picks'),
})
export type PickBreakdownRow = z.infer<typeof PickBreakdownRowSchema>

/** The bettor's figures for sports picks, from the ledger's settlements and revealed picks. */
export const PickFiguresSchema = z.object({
  minimumSample: z
    .number()
    .int()
    .describe('Settled picks needed before ratios are shown; below it they are null ("too few settled")'),
  enoughSettled: z.boolean(),
  settled: z.number().int(),
  pending: z.number().int().describe('Published, not yet settled or voided'),
  void: z.number().int(),
  lateVoid: z.number().int().describe('Voided after the event started (counted within void)'),
  won: z.number().int(),
  lost: z.number().int(),
  push: z.number().int(),
  unitsStaked: z.number(),
  profitUnits: z.number().describe('Profit in units at the stated stakes'),
  yield: z.number().nullable().describe('Profit ÷ units staked, at the stated stakes'),
  levelStakeProfitUnits: z.number().describe('Profit had every pick staked 1 unit'),
  levelStakeYield: z.number().nullable().describe('Level-stake profit ÷ settled picks'),
  levelStakeYieldInterval: RateInterval.describe(
    '95% interval of the level-stake yield: mean ± 1.96 × standard deviation ÷ √n of each pick’s level-stake profit',
  ),
  averageOdds: z.number().nullable().describe('Mean decimal odds of the settled picks'),
  breakEvenWinRate: z
    .number()
    .nullable()
    .describe('1 ÷ average decimal odds: the win rate at which level stakes break even'),
  winRate: z.number().nullable().describe('Won ÷ (won + lost)'),
  winRateInterval: RateInterval.describe('95% Wilson score interval of the win rate'),
  luckChance: z
    .number()
    .nullable()
    .describe(
      'One-sided binomial p-value: the chance of at least this many wins in the decided picks if each won at the break-even rate',
    ),
  drawdownUnits: Drawdown,
  longestLosingRun: z.number().int().describe('Most losses in a row, in settlement order (pushes skipped)'),
  expectedLongestLosingRun: z
    .number()
    .nullable()
    .describe(
      'The longest losing run to expect over this many decided picks at this win rate: log(n·p) ÷ log(1/(1−p))',
    ),
  closingLine: z.object({
    picks: z.number().int().describe('Settled picks with closing odds entered'),
    averageClv: z
      .number()
      .nullable()
      .describe('Mean closing-line value: odds taken ÷ closing odds − 1 (positive: beat the close)'),
    beatCloseShare: z.number().nullable().describe('Share of those picks whose odds beat the closing odds'),
  }),
  bySport: z.array(PickBreakdownRowSchema),
  byMarket: z.array(PickBreakdownRowSchema),
  byOddsBand: z.array(PickBreakdownRowSchema),
  byMonth: z.array(PickBreakdownRowSchema),
})
export type PickFigures = z.infer<typeof PickFiguresSchema>

/** The figures of trading signals: returns in units of risk per unit staked. */
export const TradeFiguresSchema = z.object({
  minimumSample: z.number().int(),
  enoughSettled: z.boolean(),
  settled: z.number().int(),
  pending: z.number().int(),
  void: z.number().int(),
  lateVoid: z.number().int().describe('Voided after expiry (counted within void)'),
  won: z.number().int(),
  lost: z.number().int(),
  closed: z.number().int(),
  unitsStaked: z.number(),
  profitUnits: z.number(),
  averageReturn: z.number().nullable().describe('Mean return per signal: profit ÷ stake (R-multiple)'),
  returnInterval: RateInterval.describe('95% interval of the mean return per signal (normal approximation)'),
  drawdownUnits: Drawdown,
  sharpeRatio: z
    .number()
    .nullable()
    .describe('Mean return per signal ÷ its sample standard deviation (per signal, not annualised)'),
})
export type TradeFigures = z.infer<typeof TradeFiguresSchema>

/** What the ledger committed to and what it revealed: sealed picks that fell due and stayed sealed show here. */
export const CommitmentsSchema = z.object({
  made: z.number().int().describe('Publish entries (commitments) in scope'),
  due: z.number().int().describe('Commitments whose event started or whose signal expired'),
  revealed: z.number().int().describe('Commitments settled or voided with content and salt that match'),
  overdue: z.number().int().describe('Due for more than overdueAfterHours and still sealed'),
  voided: z.number().int(),
  lateVoided: z.number().int().describe('Voided after the event started or the signal expired'),
  overdueAfterHours: z.number().int(),
})
export const OverdueCommitmentSchema = z.object({
  signalId: z.string(),
  seq: z.number().int().describe('Its publish entry'),
  kind: z.enum(SIGNAL_KINDS),
  category: z.string(),
  commitment: z.string(),
  dueAt: z.string(),
})
export const LateVoidSchema = OverdueCommitmentSchema.extend({
  voidSeq: z.number().int(),
  voidedAt: z.string(),
  reason: z.string(),
})

/** GET /record: the verified record, computed from the ledger's settlements. */
export const RecordSchema = z.object({
  overall: RecordStatsSchema,
  byKind: z.array(RecordStatsSchema.extend({ kind: z.enum(SIGNAL_KINDS) })),
  byCategory: z.array(RecordStatsSchema.extend({ kind: z.enum(SIGNAL_KINDS), category: z.string() })),
  byMonth: z.array(RecordStatsSchema.extend({ month: z.string() })),
  /** Cumulative profit in units after each settlement, in ledger order. */
  cumulative: z.array(z.object({ seq: z.number().int(), at: z.string(), units: z.number() })),
  latestSettled: z.array(SignalViewSchema),
  live: z.array(SignalViewSchema),
  head: ChainHeadSchema.nullable(),
  /** Set when the record counts only signals published since then (a member's own record). */
  since: z.string().nullable(),
  /**
   * The last moment the figures changed (an entry, a commitment falling due or turning overdue; the
   * epoch while the ledger is empty): they hold from then until now. Recompute with it to check the
   * figures.
   */
  asOf: z.string(),
  /** When the first signal in scope was published: the record's period starts there. */
  firstPublishedAt: z.string().nullable(),
  commitments: CommitmentsSchema,
  overdueCommitments: z.array(OverdueCommitmentSchema),
  lateVoids: z.array(LateVoidSchema),
  picks: PickFiguresSchema,
  trading: TradeFiguresSchema,
})
export type SignalRecord = z.infer<typeof RecordSchema>

export const RecordQuerySchema = z.object({
  since: safeText().datetime({ offset: true, message: 'since must be an ISO date and time' }).optional(),
})

export const LedgerEntrySchema = z.object({
  seq: z.number().int(),
  type: z.enum(LEDGER_ENTRY_TYPES),
  signalId: z.string(),
  at: z.string(),
  prevHash: z.string(),
  hash: z.string(),
  data: z.record(z.string(), z.unknown()),
})
export const LedgerPageSchema = z.object({
  entries: z.array(LedgerEntrySchema),
  head: ChainHeadSchema.nullable(),
})
export type LedgerPage = z.infer<typeof LedgerPageSchema>
export const LedgerQuerySchema = z.object({
  after: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(500),
  format: z.enum(['json', 'csv']).default('json'),
})

/** What the live stream sends: a signal was published, settled or voided (as the reader may see it). */
export const SignalEventSchema = z.object({
  type: z.enum(['published', 'settled', 'voided']),
  seq: z.number().int(),
  signal: SignalViewSchema,
  /** The signed head of the record at this entry's size: the member's browser keeps it as a witness. */
  head: SignedHeadSchema.nullable(),
})
export type SignalEvent = z.infer<typeof SignalEventSchema>
