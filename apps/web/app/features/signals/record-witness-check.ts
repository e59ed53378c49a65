import {
  checkWitness,
  isSignedHead,
  RECORD_HEAD_STORAGE_KEY,
  RECORD_LOG_PATHS,
  type SignedHead,
  type SubtleLike,
} from '@edgeclub/shared'

/**
 * The member's browser as a witness of the record (decision 020), loaded after the page has painted.
 * It keeps the newest signed head it has checked in localStorage (`edgeclub.recordHead`) and, on each
 * visit, fetches today's head and the RFC 9162 consistency proof from the kept one, and checks both
 * and the club's Ed25519 signature itself (Web Crypto). A failure keeps the old head, so the evidence
 * stays; nothing here passes silently.
 */

export interface WitnessEvidence {
  what: string
  problem: string
  checkedAt: string
  site: string
  publicKey: string
  /** The head this browser kept from an earlier visit. */
  storedHead: SignedHead | null
  /** Today's head, and the one the site signs today for the kept head's size. */
  currentHead: SignedHead
  headAtStoredSize: SignedHead | null
  consistencyProof: string[]
}

export type WitnessOutcome =
  | { status: 'ok'; head: SignedHead; since: SignedHead | null }
  | { status: 'failed'; problem: string; evidence: WitnessEvidence }
  | { status: 'unavailable'; reason: string }

async function getData(url: string): Promise<unknown> {
  // Past the HTTP cache: today's head, as the server has it now.
  const response = await fetch(url, { cache: 'no-cache', headers: { accept: 'application/json' } })
  if (!response.ok) throw new Error(`${url} answered ${response.status}`)
  return ((await response.json()) as { data?: unknown }).data
}

function storedHead(): SignedHead | null {
  try {
    const value: unknown = JSON.parse(localStorage.getItem(RECORD_HEAD_STORAGE_KEY) ?? 'null')
    return isSignedHead(value) ? value : null
  } catch {
    return null
  }
}

/** Whether this browser's Web Crypto verifies Ed25519 (Chromium 137+, Firefox 129+, Safari 17+). */
async function ed25519Supported(subtle: SubtleCrypto): Promise<boolean> {
  try {
    await subtle.importKey('raw', new Uint8Array(32), { name: 'Ed25519' }, false, ['verify'])
    return true
  } catch (error) {
    return !(error instanceof DOMException && error.name === 'NotSupportedError')
  }
}

export async function runWitnessCheck(): Promise<WitnessOutcome> {
  const subtle = globalThis.crypto?.subtle
  if (!subtle || !(await ed25519Supported(subtle)))
    return { status: 'unavailable', reason: 'This browser cannot check Ed25519 signatures.' }
  let current: unknown
  let publicKey: string
  try {
    // Asked together: on a phone each request costs a round trip.
    const [key, head] = await Promise.all([getData(RECORD_LOG_PATHS.key), getData(RECORD_LOG_PATHS.head())])
    current = head
    const found = (key as { publicKey?: unknown } | undefined)?.publicKey
    if (typeof found !== 'string') throw new Error('no key')
    publicKey = found
  } catch {
    return { status: 'unavailable', reason: 'The record could not be reached to check it.' }
  }
  const stored = storedHead()
  const evidenceOf = (problem: string, proof: string[], atStoredSize: SignedHead | null): WitnessOutcome => ({
    status: 'failed',
    problem,
    evidence: {
      what: "EdgeClub record check: the signed head this browser kept, today's signed head, and the RFC 9162 consistency proof between them (verify with npm run verify-record -- <site> --since this-file.json)",
      problem,
      checkedAt: new Date().toISOString(),
      site: window.location.origin,
      publicKey,
      storedHead: stored,
      currentHead: current as SignedHead,
      headAtStoredSize: atStoredSize,
      consistencyProof: proof,
    },
  })
  if (!isSignedHead(current)) return evidenceOf("Today's record head is malformed.", [], null)
  let proof: string[] = []
  let atStoredSize: SignedHead | null = null
  if (stored && stored.size <= current.size) {
    try {
      proof = (
        (await getData(RECORD_LOG_PATHS.consistency(stored.size, current.size))) as { proof: string[] }
      ).proof
      const again = await getData(RECORD_LOG_PATHS.head(stored.size))
      atStoredSize = isSignedHead(again) ? again : null
    } catch {
      return { status: 'unavailable', reason: 'The record could not be reached to check it.' }
    }
  }
  const check = await checkWitness({
    subtle: subtle as unknown as SubtleLike,
    publicKey,
    stored,
    current,
    proof,
  })
  if (!check.ok) return evidenceOf(check.problem, proof, atStoredSize)
  try {
    localStorage.setItem(RECORD_HEAD_STORAGE_KEY, JSON.stringify(check.head))
  } catch {
    // Storage full or refused: the check held, there is just nothing kept for the next visit.
  }
  return { status: 'ok', head: current, since: stored }
}
