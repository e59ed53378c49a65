import { createHash, webcrypto } from 'node:crypto'
import fs from 'node:fs/promises'
import {
  bytesToHex,
  hexToBytes,
  isSignedHead,
  type LedgerEntry,
  MerkleTree,
  RECORD_LOG_PATHS,
  type SignedHead,
  type SubtleLike,
  verifyConsistency,
  verifyHeadSignature,
} from '@edgeclub/shared'

/**
 * The signed log's part of `verify-record` (decision 020): the site's signed head against the
 * ledger it serves, and, with `--since head.json`, a head saved earlier against today's log.
 * Each finding is a line; `ok: false` makes the command fail.
 */

const subtle = webcrypto.subtle as unknown as SubtleLike
const sha = (data: Uint8Array) => new Uint8Array(createHash('sha256').update(data).digest())

export interface LogFinding {
  ok: boolean
  line: string
}

const dataOf = (body: unknown) =>
  body && typeof body === 'object' && 'data' in body ? (body as { data: unknown }).data : body

async function getJson(url: string): Promise<unknown> {
  const response = await fetch(url, { headers: { accept: 'application/json' } })
  if (!response.ok) throw new Error(`${url} answered ${response.status}`)
  return dataOf(await response.json())
}

/**
 * A saved head: a head as GET /record/head gives it (bare or in its envelope), or the evidence file the
 * record page offers (its `storedHead`). A `publicKey` beside it is used when there is no site.
 */
export async function readSavedHead(file: string): Promise<{ head: SignedHead; publicKey?: string }> {
  const body = dataOf(JSON.parse(await fs.readFile(file, 'utf8'))) as Record<string, unknown>
  const head = isSignedHead(body) ? body : isSignedHead(body?.storedHead) ? body.storedHead : undefined
  if (!head) throw new Error(`${file} holds no signed head { size, rootHash, timestamp, signature }`)
  return { head, publicKey: typeof body.publicKey === 'string' ? body.publicKey : undefined }
}

function treeOf(entries: LedgerEntry[]): MerkleTree {
  const tree = new MerkleTree(sha)
  for (const entry of entries) tree.append(entry.hash)
  return tree
}

const describe = (head: SignedHead) =>
  `#${head.size} root ${head.rootHash} signed ${new Date(head.timestamp).toISOString()}`

/** Checks the signed log of a site (`base`: its origin) and, when given, a saved head against it. */
export async function checkSignedLog(
  base: string | null,
  entries: LedgerEntry[],
  saved: { head: SignedHead; publicKey?: string } | undefined,
): Promise<LogFinding[]> {
  const findings: LogFinding[] = []
  const tree = treeOf(entries)
  let publicKey = saved?.publicKey
  let today: SignedHead | undefined
  if (base) {
    const key = (await getJson(`${base}${RECORD_LOG_PATHS.key}`)) as { publicKey: string }
    publicKey = key.publicKey
    findings.push({ ok: true, line: `Signing key (Ed25519): ${publicKey}` })
    const head = await getJson(`${base}${RECORD_LOG_PATHS.head()}`)
    if (!isSignedHead(head))
      return [...findings, { ok: false, line: 'MISMATCH: the site gives no signed head' }]
    today = head
    if (!(await verifyHeadSignature(subtle, publicKey, today)))
      findings.push({
        ok: false,
        line: `MISMATCH: the head ${describe(today)} is not signed by the site's key`,
      })
    else if (today.size > tree.size || bytesToHex(tree.root(today.size)) !== today.rootHash)
      findings.push({
        ok: false,
        line: `MISMATCH: the signed head ${describe(today)} is not the Merkle root of the ledger the site serves`,
      })
    else findings.push({ ok: true, line: `Signed head ${describe(today)} matches the ledger.` })
  }
  if (!saved) return findings

  const { head } = saved
  if (publicKey && !(await verifyHeadSignature(subtle, publicKey, head)))
    return [
      ...findings,
      { ok: false, line: `MISMATCH: the saved head ${describe(head)} is not signed by this key` },
    ]
  if (!publicKey)
    findings.push({ ok: true, line: 'No public key: the saved head’s signature was not checked.' })

  if (base) {
    // Two validly signed heads for one size with different roots: the history was forked.
    const other = await getJson(`${base}${RECORD_LOG_PATHS.head(head.size)}`).catch(() => undefined)
    if (
      isSignedHead(other) &&
      other.rootHash !== head.rootHash &&
      publicKey &&
      (await verifyHeadSignature(subtle, publicKey, other))
    )
      findings.push({
        ok: false,
        line: `FORKED HISTORY: two different signed heads for size ${head.size}: the saved one (root ${head.rootHash}) and the site's today (root ${other.rootHash}). Both carry the club's signature; keep both as proof.`,
      })
  }
  if (head.size > tree.size)
    return [
      ...findings,
      {
        ok: false,
        line: `MISMATCH: the saved head has ${head.size} entries; the ledger has only ${tree.size} now`,
      },
    ]
  if (bytesToHex(tree.root(head.size)) !== head.rootHash)
    findings.push({
      ok: false,
      line: `REWRITTEN: the ledger's first ${head.size} entries are not the ones the saved head ${describe(head)} signed`,
    })
  if (base && today && today.size >= head.size) {
    const { proof } = (await getJson(`${base}${RECORD_LOG_PATHS.consistency(head.size, today.size)}`)) as {
      proof: string[]
    }
    const consistent = await verifyConsistency(
      sha,
      head.size,
      today.size,
      hexToBytes(head.rootHash),
      hexToBytes(today.rootHash),
      proof.map(hexToBytes),
    )
    findings.push(
      consistent
        ? {
            ok: true,
            line: `Consistent: today's head #${today.size} extends the saved head #${head.size} (RFC 9162 proof checked).`,
          }
        : {
            ok: false,
            line: `MISMATCH: the site's consistency proof from #${head.size} to #${today.size} does not hold`,
          },
    )
  } else if (findings.every((finding) => finding.ok))
    findings.push({
      ok: true,
      line: `Consistent: the ledger's first ${head.size} entries are the saved head's.`,
    })
  return findings
}
