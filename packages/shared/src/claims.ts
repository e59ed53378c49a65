import { z } from 'zod'
import { text } from './text'

/**
 * The marketing claims on the landing, about and register pages are the owner's settings. They
 * default to the texts the pages always had; once the record holds enough settled picks the owner
 * may show the record's own win rate (with its sample and period) instead. The admin console warns
 * when a typed claim contradicts the record.
 */

/** A typed win rate further than this from the record's is flagged as contradicting it. */
export const CLAIM_WIN_RATE_TOLERANCE = 0.02

export const claimsMessages = {
  tooFewSettled: (minimum: number, settled: number) =>
    `The record's own figures can be shown once ${minimum} picks have settled (${settled} so far)`,
} as const

const claim = (label: string) =>
  text().trim().min(1, `${label} cannot be empty`).max(40, 'At most 40 characters')

/** PUT /admin/claims */
export const ClaimsInputSchema = z.object({
  members: claim('The members claim'),
  aiAccuracy: claim('The accuracy claim'),
  winRate: claim('The win rate claim'),
  trackRecord: claim('The track record claim'),
  showRecordFigures: z.boolean(),
})
export type ClaimsInput = z.infer<typeof ClaimsInputSchema>

/** What the public pages show: the typed texts, or the record's win rate and sample in their place. */
export const ShownClaimsSchema = z.object({
  members: z.string(),
  aiAccuracy: z.string(),
  winRate: z.string(),
  trackRecord: z.string(),
  /** True when winRate and trackRecord come from the verified record (the pages link to it). */
  fromRecord: z.boolean(),
})
export type ShownClaims = z.infer<typeof ShownClaimsSchema>

/** GET /admin/claims: the settings, what the pages show, what the record says and where they disagree. */
export const ClaimsSettingsSchema = ClaimsInputSchema.extend({
  shown: ShownClaimsSchema,
  record: z.object({
    settledPicks: z.number().int(),
    decidedPicks: z.number().int(),
    winRate: z.number().nullable().describe('Won ÷ (won + lost) of settled picks, whatever the sample'),
    firstPublishedAt: z.string().nullable(),
    minimumSample: z.number().int(),
    canShowRecord: z.boolean(),
  }),
  warnings: z.array(z.string()),
})
export type ClaimsSettings = z.infer<typeof ClaimsSettingsSchema>
