import canonicalize from 'canonicalize'
import { API_BASE } from './paths'

/**
 * The signed, append-only log over the signal ledger, in the form Certificate Transparency uses
 * (RFC 9162 §2.1): a Merkle tree whose leaves are the ledger entries' hashes in `seq` order, and
 * *signed heads* `{ size, rootHash, timestamp }` signed with the club's Ed25519 key.
 *
 * - leaf hash = SHA-256(0x00 ‖ the entry's 32-byte `hash`), node = SHA-256(0x01 ‖ left ‖ right);
 *   the tree of no entries hashes to SHA-256 of nothing.
 * - `timestamp` is milliseconds since the Unix epoch, as RFC 9162's tree heads; the signature
 *   (base64) covers the UTF-8 RFC 8785 (JCS) canonical JSON of `{ size, rootHash, timestamp }`.
 * - Inclusion proofs are RFC 9162's PATH, consistency proofs its PROOF; the verifiers below follow
 *   its §2.1.3.2 and §2.1.4.2 step by step.
 *
 * No hashing of its own: the tree takes a synchronous SHA-256 (Node's), the verifiers any SHA-256,
 * synchronous or not (a browser's Web Crypto), so the server, `verify-record` and the member's
 * browser share this code.
 */

export type Bytes = Uint8Array
export type Sha256Sync = (data: Bytes) => Bytes
export type Sha256Any = (data: Bytes) => Bytes | Promise<Bytes>

/** A signed tree head as the API gives it: hex root, base64 signature. */
export interface SignedHead {
  size: number
  rootHash: string
  timestamp: number
  signature: string
}
export type TreeHead = Omit<SignedHead, 'signature'>

/** Where the signed log is read (under the API base): the public contract outside verifiers rely on; keep these paths exactly. */
export const RECORD_LOG_PATHS = {
  key: `${API_BASE}/record/key`,
  head: (size?: number) => `${API_BASE}/record/head${size === undefined ? '' : `?size=${size}`}`,
  inclusion: (seq: number, size: number) => `${API_BASE}/record/proof/inclusion?seq=${seq}&size=${size}`,
  consistency: (from: number, to: number) => `${API_BASE}/record/proof/consistency?from=${from}&to=${to}`,
} as const

/** The browser's stored witness: the newest signed head this member's browser has seen and checked. */
export const RECORD_HEAD_STORAGE_KEY = 'edgeclub.recordHead'

export function hexToBytes(hex: string): Bytes {
  if (!/^(?:[0-9a-f]{2})*$/i.test(hex)) throw new Error('not a hex string')
  const bytes = new Uint8Array(hex.length / 2)
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16)
  return bytes
}

export function bytesToHex(bytes: Bytes): string {
  let hex = ''
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0')
  return hex
}

export function base64ToBytes(text: string): Bytes {
  const binary = atob(text)
  return Uint8Array.from(binary, (char) => char.charCodeAt(0))
}

export function bytesToBase64(bytes: Bytes): string {
  let binary = ''
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary)
}

function concat(prefix: number, ...parts: Bytes[]): Bytes {
  const out = new Uint8Array(1 + parts.reduce((sum, part) => sum + part.length, 0))
  out[0] = prefix
  let at = 1
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}

const sameBytes = (a: Bytes, b: Bytes) => a.length === b.length && a.every((byte, i) => byte === b[i])

/** The leaf of a ledger entry: SHA-256(0x00 ‖ its 32-byte hash). */
export function leafHashOf(entryHashHex: string, sha256: Sha256Sync): Bytes {
  const hash = hexToBytes(entryHashHex)
  if (hash.length !== 32) throw new Error('a ledger entry hash is 32 bytes')
  return sha256(concat(0, hash))
}

/** The largest power of two smaller than n (n > 1). */
function splitOf(n: number): number {
  let k = 1
  while (k * 2 < n) k *= 2
  return k
}

/**
 * The Merkle tree of RFC 9162 over leaf hashes, kept incrementally: every complete, aligned subtree
 * is hashed once when its last leaf arrives, so a root or a proof of any size costs O(log n) hashes.
 */
export class MerkleTree {
  /** levels[k][i] = hash of the perfect subtree of leaves [i·2^k, (i+1)·2^k). */
  private levels: Bytes[][] = [[]]
  private readonly empty: Bytes

  constructor(private readonly sha256: Sha256Sync) {
    this.empty = sha256(new Uint8Array())
  }

  get size(): number {
    return this.levels[0]!.length
  }

  appendLeaf(leaf: Bytes): void {
    let index = this.levels[0]!.push(leaf) - 1
    let level = 0
    while (index & 1) {
      const below = this.levels[level]!
      const hash = this.sha256(concat(1, below[index - 1]!, below[index]!))
      level += 1
      index >>= 1
      const above = this.levels[level] ?? []
      this.levels[level] = above
      above[index] = hash
    }
  }

  /** Appends a ledger entry by its hash (hex). */
  append(entryHashHex: string): void {
    this.appendLeaf(leafHashOf(entryHashHex, this.sha256))
  }

  /** Forgets every leaf from `size` on (an append whose transaction rolled back). */
  truncate(size: number): void {
    if (size >= this.size) return
    for (let level = 0; level < this.levels.length; level++) this.levels[level]!.length = size >> level
  }

  /** MTH(D[start:end]); every range reached from [0, n) starts aligned to its perfect left part. */
  private range(start: number, end: number): Bytes {
    const n = end - start
    if (n === 0) return this.empty
    if ((n & (n - 1)) === 0) {
      const level = Math.log2(n)
      const stored = this.levels[level]?.[start / n]
      if (stored) return stored
    }
    const k = splitOf(n)
    return this.sha256(concat(1, this.range(start, start + k), this.range(start + k, end)))
  }

  private check(size: number): void {
    if (!Number.isInteger(size) || size < 0 || size > this.size)
      throw new RangeError(`the log has ${this.size} entries, not ${size}`)
  }

  /** The root of the first `size` leaves (MTH(D[0:size])). */
  root(size = this.size): Bytes {
    this.check(size)
    return this.range(0, size)
  }

  /** PATH(index, D[0:size]): the audit path of leaf `index` (0-based) in the tree of `size` leaves. */
  inclusionProof(index: number, size: number): Bytes[] {
    this.check(size)
    if (!Number.isInteger(index) || index < 0 || index >= size)
      throw new RangeError(`leaf ${index} is not in a tree of ${size}`)
    const path = (m: number, start: number, end: number): Bytes[] => {
      const n = end - start
      if (n === 1) return []
      const k = splitOf(n)
      return m < k
        ? [...path(m, start, start + k), this.range(start + k, end)]
        : [...path(m - k, start + k, end), this.range(start, start + k)]
    }
    return path(index, 0, size)
  }

  /** PROOF(from, D[0:to]): that the tree of `from` leaves is a prefix of the tree of `to`. */
  consistencyProof(from: number, to: number): Bytes[] {
    this.check(to)
    if (!Number.isInteger(from) || from < 0 || from > to)
      throw new RangeError(`no consistency proof from ${from} to ${to}`)
    if (from === 0 || from === to) return []
    const subproof = (m: number, start: number, end: number, whole: boolean): Bytes[] => {
      const n = end - start
      if (m === n) return whole ? [] : [this.range(start, end)]
      const k = splitOf(n)
      return m <= k
        ? [...subproof(m, start, start + k, whole), this.range(start + k, end)]
        : [...subproof(m - k, start + k, end, false), this.range(start, start + k)]
    }
    return subproof(from, 0, to, true)
  }
}

/** RFC 9162 §2.1.3.2: is `leafHash` the leaf at `index` of the tree of `size` with root `root`? */
export async function verifyInclusion(
  sha256: Sha256Any,
  index: number,
  size: number,
  leafHash: Bytes,
  proof: Bytes[],
  root: Bytes,
): Promise<boolean> {
  if (!Number.isInteger(index) || !Number.isInteger(size) || index < 0 || index >= size) return false
  let fn = index
  let sn = size - 1
  let r = leafHash
  for (const p of proof) {
    if (sn === 0) return false
    if (fn & 1 || fn === sn) {
      r = await sha256(concat(1, p, r))
      if (!(fn & 1))
        while (!(fn & 1) && fn !== 0) {
          fn >>= 1
          sn >>= 1
        }
    } else {
      r = await sha256(concat(1, r, p))
    }
    fn >>= 1
    sn >>= 1
  }
  return sn === 0 && sameBytes(r, root)
}

/**
 * RFC 9162 §2.1.4.2: is the tree of `from` leaves (root `fromRoot`) a prefix of the tree of `to`
 * leaves (root `toRoot`)? Equal sizes need equal roots and an empty proof; every tree extends the
 * empty one.
 */
export async function verifyConsistency(
  sha256: Sha256Any,
  from: number,
  to: number,
  fromRoot: Bytes,
  toRoot: Bytes,
  proof: Bytes[],
): Promise<boolean> {
  if (!Number.isInteger(from) || !Number.isInteger(to) || from < 0 || from > to) return false
  if (from === 0) return proof.length === 0 && sameBytes(fromRoot, await sha256(new Uint8Array()))
  if (from === to) return proof.length === 0 && sameBytes(fromRoot, toRoot)
  if (proof.length === 0) return false
  const path = (from & (from - 1)) === 0 ? [fromRoot, ...proof] : [...proof]
  let fn = from - 1
  let sn = to - 1
  while (fn & 1) {
    fn >>= 1
    sn >>= 1
  }
  let fr = path[0]!
  let sr = path[0]!
  for (const c of path.slice(1)) {
    if (sn === 0) return false
    if (fn & 1 || fn === sn) {
      fr = await sha256(concat(1, c, fr))
      sr = await sha256(concat(1, c, sr))
      if (!(fn & 1))
        while (!(fn & 1) && fn !== 0) {
          fn >>= 1
          sn >>= 1
        }
    } else {
      sr = await sha256(concat(1, sr, c))
    }
    fn >>= 1
    sn >>= 1
  }
  return sameBytes(fr, fromRoot) && sameBytes(sr, toRoot) && sn === 0
}

/** What a head's signature covers: the UTF-8 JCS of `{ size, rootHash, timestamp }`. */
export function headMessage(head: TreeHead): Bytes {
  return new TextEncoder().encode(
    canonicalize({ size: head.size, rootHash: head.rootHash, timestamp: head.timestamp }) as string,
  )
}

/** A signed head's shape, checked before anything is computed from it (stored or received JSON). */
export function isSignedHead(value: unknown): value is SignedHead {
  if (!value || typeof value !== 'object') return false
  const head = value as Record<string, unknown>
  return (
    Number.isSafeInteger(head.size) &&
    (head.size as number) >= 0 &&
    typeof head.rootHash === 'string' &&
    /^[0-9a-f]{64}$/.test(head.rootHash) &&
    Number.isSafeInteger(head.timestamp) &&
    typeof head.signature === 'string' &&
    /^[A-Za-z0-9+/]{86}==$/.test(head.signature)
  )
}

/** The parts of Web Crypto the checks use (a browser's `crypto.subtle`, or Node's). */
export interface SubtleLike {
  importKey(
    format: 'raw',
    keyData: Bytes,
    algorithm: { name: 'Ed25519' },
    extractable: boolean,
    usages: ['verify'],
  ): Promise<unknown>
  verify(algorithm: { name: 'Ed25519' }, key: unknown, signature: Bytes, data: Bytes): Promise<boolean>
  digest(algorithm: 'SHA-256', data: Bytes): Promise<ArrayBuffer>
}

/** Web Crypto's SHA-256 as the verifiers take it. */
export const webSha256 =
  (subtle: SubtleLike): Sha256Any =>
  async (data) =>
    new Uint8Array(await subtle.digest('SHA-256', data))

/** Whether `head` is signed by the Ed25519 key `publicKey` (32 bytes, base64). */
export async function verifyHeadSignature(
  subtle: SubtleLike,
  publicKey: string,
  head: SignedHead,
): Promise<boolean> {
  const key = await subtle.importKey('raw', base64ToBytes(publicKey), { name: 'Ed25519' }, false, ['verify'])
  return subtle.verify({ name: 'Ed25519' }, key, base64ToBytes(head.signature), headMessage(head))
}

export type WitnessCheck = { ok: true; head: SignedHead } | { ok: false; problem: string; forked: boolean }

/**
 * A witness's check: the head it kept (`stored`, verified when it was kept) against today's head and
 * the consistency proof between them. OK only when both signatures hold, the log did not shrink, and
 * the proof shows today's tree extends the stored one; `forked` when two validly signed heads
 * disagree (proof that the history was rewritten).
 */
export async function checkWitness(input: {
  subtle: SubtleLike
  publicKey: string
  stored: SignedHead | null
  current: SignedHead
  proof: string[]
}): Promise<WitnessCheck> {
  const { subtle, publicKey, stored, current } = input
  const sha256 = webSha256(subtle)
  if (!(await verifyHeadSignature(subtle, publicKey, current)))
    return { ok: false, forked: false, problem: "Today's record head does not carry the club's signature." }
  if (!stored) return { ok: true, head: current }
  if (!(await verifyHeadSignature(subtle, publicKey, stored)))
    return {
      ok: false,
      forked: false,
      problem: 'The record head kept in this browser has no valid signature.',
    }
  if (stored.size > current.size)
    return {
      ok: false,
      forked: true,
      problem: `The record had ${stored.size} entries when you last visited and has ${current.size} now: entries were removed.`,
    }
  const consistent = await verifyConsistency(
    sha256,
    stored.size,
    current.size,
    hexToBytes(stored.rootHash),
    hexToBytes(current.rootHash),
    input.proof.map(hexToBytes),
  )
  if (!consistent)
    return {
      ok: false,
      forked: true,
      problem: `The record's first ${stored.size} entries are not the ones you saw on your last visit: its history was rewritten.`,
    }
  return { ok: true, head: stored.size === current.size ? stored : current }
}

/**
 * What every delivery of a ledger entry carries (Discord, Telegram, email), so members hold a copy of
 * the record as it was: the signal's commitment and the signed head its entry was appended under.
 * Chats get one short line (prefixes of the hashes, the full signature: with the size it finds the
 * head again at /record/head?size=N, and a rewritten root no longer matches); email gets every value
 * in full, enough to prove a rewritten history to anyone.
 */
export function witnessText(commitment: string, head: SignedHead, style: 'chat' | 'email'): string {
  if (style === 'chat')
    return `Sealed: commitment ${commitment.slice(0, 16)}… · record head #${head.size}, root ${head.rootHash.slice(0, 16)}…, signature ${head.signature}`
  return [
    `Sealed in the public record: commitment ${commitment}.`,
    `Signed record head #${head.size}: root ${head.rootHash}, timestamp ${head.timestamp} (${new Date(head.timestamp).toISOString()}), Ed25519 signature ${head.signature}.`,
  ].join('\n')
}
