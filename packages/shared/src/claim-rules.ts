import { site } from './site'

/** The marketing claims' keys and default texts (claims.ts has the owner's settings' schemas). Without zod: every page shows them. */
export const CLAIM_KEYS = ['members', 'aiAccuracy', 'winRate', 'trackRecord'] as const
export type ClaimKey = (typeof CLAIM_KEYS)[number]
export type ClaimTexts = Record<ClaimKey, string>

export const DEFAULT_CLAIMS: ClaimTexts = {
  members: site.figures.members,
  aiAccuracy: site.figures.aiAccuracy,
  winRate: site.figures.winRate,
  trackRecord: site.figures.trackRecord,
}
