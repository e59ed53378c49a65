import {
  CLAIM_WIN_RATE_TOLERANCE,
  type ClaimsInput,
  type ClaimsSettings,
  type ClaimTexts,
  claimsMessages,
  DEFAULT_CLAIMS,
  formatDate,
  formatNumber,
  formatRate,
  MIN_SETTLED_FOR_RATIOS,
  type ShownClaims,
  type SignalRecord,
} from '@edgeclub/shared'
import { badRequest } from '../../lib/errors'
import type { ClaimsRepository } from './claims-repository'

const CACHE_MS = 5_000
const YEAR_MS = 365.25 * 24 * 3_600_000

/** "78%", "78 %", "a 78.5% win rate" → 0.78; undefined when no percentage is written. */
function percentIn(text: string): number | undefined {
  const match = /(\d{1,3}(?:\.\d+)?)\s*%/.exec(text)
  return match ? Number(match[1]) / 100 : undefined
}

/** "3+ years", "over 2 years" → 3, 2; undefined when no years are written. */
function yearsIn(text: string): number | undefined {
  const match = /(\d+(?:\.\d+)?)\s*\+?\s*years?/i.exec(text)
  return match ? Number(match[1]) : undefined
}

const monthYear = (iso: string) => formatDate(iso, { month: 'short', year: 'numeric', timeZone: 'UTC' })

/** What the record says that a claim can be held against. */
function recordFacts(record: SignalRecord) {
  const picks = record.picks
  const decided = picks.won + picks.lost
  return {
    settledPicks: picks.settled,
    decidedPicks: decided,
    winRate: decided === 0 ? null : Math.round((picks.won / decided) * 10_000) / 10_000,
    firstPublishedAt: record.firstPublishedAt,
    minimumSample: picks.minimumSample,
    canShowRecord: picks.settled >= MIN_SETTLED_FOR_RATIOS,
  }
}

/**
 * The owner's claims: stored texts (defaults when never set), what the pages show, and warnings where
 * a typed claim says something the verified record does not.
 */
export function createClaimsService(deps: {
  repo: ClaimsRepository
  record: () => Promise<SignalRecord>
  clock: { now(): Date }
}) {
  let cached: { at: number; value: ClaimsSettings } | undefined

  async function load(): Promise<ClaimsSettings> {
    const [row, record] = await Promise.all([deps.repo.get(), deps.record()])
    const typed: ClaimTexts = {
      members: row?.members ?? DEFAULT_CLAIMS.members,
      aiAccuracy: row?.ai_accuracy ?? DEFAULT_CLAIMS.aiAccuracy,
      winRate: row?.win_rate ?? DEFAULT_CLAIMS.winRate,
      trackRecord: row?.track_record ?? DEFAULT_CLAIMS.trackRecord,
    }
    const facts = recordFacts(record)
    const fromRecord = Boolean(row?.show_record_figures) && facts.canShowRecord && facts.winRate !== null
    const shown: ShownClaims = fromRecord
      ? {
          members: typed.members,
          aiAccuracy: typed.aiAccuracy,
          winRate: formatRate(facts.winRate),
          trackRecord: `${formatNumber(facts.decidedPicks)} decided picks since ${monthYear(facts.firstPublishedAt ?? deps.clock.now().toISOString())} on the verified record`,
          fromRecord: true,
        }
      : { ...typed, fromRecord: false }
    const warnings: string[] = []
    if (!fromRecord) {
      const claimed = percentIn(typed.winRate)
      if (claimed !== undefined && facts.winRate === null)
        warnings.push(
          `The pages claim a ${typed.winRate} win rate, but the record has no decided pick to back it.`,
        )
      else if (
        claimed !== undefined &&
        facts.winRate !== null &&
        Math.abs(claimed - facts.winRate) > CLAIM_WIN_RATE_TOLERANCE
      )
        warnings.push(
          `The pages claim a ${typed.winRate} win rate; the verified record says ${formatRate(facts.winRate)} over ${facts.decidedPicks} decided picks.`,
        )
      const years = yearsIn(typed.trackRecord)
      const span = facts.firstPublishedAt
        ? (deps.clock.now().getTime() - new Date(facts.firstPublishedAt).getTime()) / YEAR_MS
        : 0
      if (years !== undefined && span < years)
        warnings.push(
          facts.firstPublishedAt
            ? `The pages claim a track record of ${typed.trackRecord}; the verified record starts in ${monthYear(facts.firstPublishedAt)}.`
            : `The pages claim a track record of ${typed.trackRecord}; the verified record has no signal yet.`,
        )
    }
    if (percentIn(typed.aiAccuracy) !== undefined)
      warnings.push(
        `"AI ${typed.aiAccuracy} accuracy" is not measured by the verified record (it counts wins, losses and units, not accuracy).`,
      )
    return {
      ...typed,
      showRecordFigures: Boolean(row?.show_record_figures),
      shown,
      record: facts,
      warnings,
    }
  }

  async function settings(): Promise<ClaimsSettings> {
    const now = Date.now()
    if (cached && now - cached.at < CACHE_MS) return cached.value
    const value = await load()
    cached = { at: now, value }
    return value
  }

  return {
    settings,
    /** What the public pages show (served into the prerendered pages and by GET /claims). */
    shown: async (): Promise<ShownClaims> => (await settings()).shown,

    async save(input: ClaimsInput): Promise<ClaimsSettings> {
      if (input.showRecordFigures) {
        const facts = recordFacts(await deps.record())
        if (!facts.canShowRecord)
          throw badRequest(claimsMessages.tooFewSettled(facts.minimumSample, facts.settledPicks), [
            {
              field: 'showRecordFigures',
              message: claimsMessages.tooFewSettled(facts.minimumSample, facts.settledPicks),
            },
          ])
      }
      await deps.repo.save({
        members: input.members,
        ai_accuracy: input.aiAccuracy,
        win_rate: input.winRate,
        track_record: input.trackRecord,
        show_record_figures: input.showRecordFigures,
      })
      cached = undefined
      return settings()
    },
  }
}
export type ClaimsService = ReturnType<typeof createClaimsService>
