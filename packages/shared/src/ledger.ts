import canonicalize from 'canonicalize'

/**
 * The public signal ledger: an append-only hash chain anyone can check without trusting us.
 *
 * - `commitment` = lowercase hex SHA-256 of the RFC 8785 (JCS) canonical JSON of the signal's
 *   content object plus a `salt` field (32 random hex characters, made at publication). Until the
 *   signal is settled or voided only the commitment is public; the salt stops anyone from hashing
 *   every possible selection to learn a premium pick from it.
 * - Each entry is `{ seq, type, signalId, at, prevHash, hash, data }`; `seq` counts from 1, `prevHash`
 *   is the previous entry's `hash` (64 zeros for the first), and `hash` = lowercase hex SHA-256 of the
 *   UTF-8 string `prevHash` followed directly by the JCS of the entry without its `hash` field.
 *
 * This module has no hashing of its own (Node and browsers hash differently): callers pass SHA-256.
 */

export const GENESIS_HASH = '0'.repeat(64)
export const LEDGER_ENTRY_TYPES = ['publish', 'settle', 'void'] as const
export type LedgerEntryType = (typeof LEDGER_ENTRY_TYPES)[number]

/** What a publish entry says in public: never the pick itself, only its commitment and when it plays. */
export type PublishData = {
  commitment: string
  kind: 'pick' | 'signal'
  /** The sport of a pick, the instrument of a trading signal. */
  category: string
  startsAt?: string
  expiresAt?: string
}
export type SettleData = {
  result: 'won' | 'lost' | 'push' | 'closed'
  profitUnits: number
  /** A pick's closing decimal odds, when the analyst entered them at settlement. */
  closingOdds?: number
  /** A trading signal's exit price (entries since closing odds were added). */
  exitPrice?: number
}
export type VoidData = {
  reason: string
  /** Set when a pick was voided after its event started (or a trading signal after it expired). */
  afterStart?: true
}

export interface LedgerEntry {
  seq: number
  type: LedgerEntryType
  signalId: string
  at: string
  prevHash: string
  hash: string
  data: PublishData | SettleData | VoidData
}

export type Sha256Hex = (text: string) => string

/** The JCS text the commitment hashes: the content object with the salt beside its fields. */
export function commitmentPreimage(content: Record<string, unknown>, salt: string): string {
  return canonicalize({ ...content, salt }) as string
}

/** The text an entry's hash covers: the previous hash, then the JCS of the entry without `hash`. */
export function entryPreimage(entry: Omit<LedgerEntry, 'hash'> | LedgerEntry): string {
  const { hash: _hash, ...rest } = entry as LedgerEntry
  return `${entry.prevHash}${canonicalize(rest) as string}`
}

/** A signal as the public record reveals it once settled or voided: its content and salt. */
export interface RevealedSignal {
  id: string
  commitment: string
  content: Record<string, unknown> | null
  salt: string | null
}

export type VerifyResult =
  | { ok: true; entries: number; revealed: number; head: { seq: number; hash: string } | null }
  | { ok: false; seq: number | null; signalId?: string; problem: string }

/**
 * Recomputes every hash of the chain in order and every revealed commitment. Returns OK, or the
 * first entry (or revealed signal) that does not match and why.
 */
export function verifyLedger(
  entries: LedgerEntry[],
  revealed: RevealedSignal[],
  sha256: Sha256Hex,
): VerifyResult {
  let prevHash = GENESIS_HASH
  const commitments = new Map<string, string>()
  for (const [index, entry] of entries.entries()) {
    if (entry.seq !== index + 1)
      return { ok: false, seq: entry.seq, problem: `expected entry ${index + 1} here, found ${entry.seq}` }
    if (entry.prevHash !== prevHash)
      return { ok: false, seq: entry.seq, problem: "prevHash is not the previous entry's hash" }
    const hash = sha256(entryPreimage(entry))
    if (hash !== entry.hash)
      return { ok: false, seq: entry.seq, problem: `hash does not match its content (recomputed ${hash})` }
    if (entry.type === 'publish') commitments.set(entry.signalId, (entry.data as PublishData).commitment)
    prevHash = entry.hash
  }
  let checked = 0
  for (const signal of revealed) {
    if (!signal.content || !signal.salt) continue
    const published = commitments.get(signal.id)
    if (!published)
      return { ok: false, seq: null, signalId: signal.id, problem: 'a revealed signal has no publish entry' }
    const commitment = sha256(commitmentPreimage(signal.content, signal.salt))
    if (commitment !== published || commitment !== signal.commitment)
      return {
        ok: false,
        seq: null,
        signalId: signal.id,
        problem: `its content and salt hash to ${commitment}, not the published commitment ${published}`,
      }
    checked += 1
  }
  const last = entries.at(-1)
  return {
    ok: true,
    entries: entries.length,
    revealed: checked,
    head: last ? { seq: last.seq, hash: last.hash } : null,
  }
}
