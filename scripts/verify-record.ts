import { createHash } from 'node:crypto'
import fs from 'node:fs/promises'
import { type LedgerEntry, type RevealedSignal, type SignalRecord, verifyLedger } from '@edgeclub/shared'
import { checkRecordFigures } from './verify-record-figures'
import { checkSignedLog, readSavedHead } from './verify-record-log'

/**
 * `npm run verify-record -- <site URL or ledger file> [--since head.json]`: recomputes every hash of EdgeClub's public
 * signal ledger and every revealed commitment, trusting nothing but SHA-256 and RFC 8785, and prints
 * OK or the first entry that does not match.
 *
 * - A site URL (e.g. https://edgeclub.example) is read through its public API: the ledger from
 *   /discord/api/record/ledger, and each settled or voided signal's content and salt from
 *   /discord/api/record/signals/{id}. The published figures (/discord/api/record) are then
 *   recomputed from those entries alone and must match (scripts/verify-record-figures.ts).
 * - A file is the ledger as downloaded from the record page: `{ entries, signals?, record? }` JSON,
 *   or the API's `{ success, data: { entries } }` envelope. Signals in `signals` are checked against
 *   their commitments too, and `record` (a saved GET /record answer) against the entries.
 * - A site's signed head (decision 020) is checked against the ledger it serves. `--since head.json`
 *   (a head saved earlier: from GET /record/head, an email, or the record page's evidence) checks that
 *   today's log extends it (RFC 9162 consistency), and reports two different signed heads for the same
 *   size as a forked history.
 */

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex')
const API = '/discord/api'

interface Loaded {
  entries: LedgerEntry[]
  signals: RevealedSignal[]
  record?: SignalRecord
}

async function getJson(url: string): Promise<unknown> {
  const response = await fetch(url, { headers: { accept: 'application/json' } })
  if (!response.ok) throw new Error(`${url} answered ${response.status}`)
  return response.json()
}

const dataOf = (body: unknown) =>
  body && typeof body === 'object' && 'data' in body ? (body as { data: unknown }).data : body

async function fromSite(origin: string): Promise<Loaded> {
  const base = origin.replace(/\/$/, '')
  // The figures first: the ledger read after them holds at least the entries they were computed from.
  const record = dataOf(await getJson(`${base}${API}/record`)) as SignalRecord
  const entries: LedgerEntry[] = []
  for (let after = 0; ; ) {
    const page = dataOf(await getJson(`${base}${API}/record/ledger?after=${after}&limit=1000`)) as {
      entries: LedgerEntry[]
    }
    entries.push(...page.entries)
    if (page.entries.length < 1000) break
    after = page.entries.at(-1)!.seq
  }
  const closed = [
    ...new Set(entries.filter((entry) => entry.type !== 'publish').map((entry) => entry.signalId)),
  ]
  const signals: RevealedSignal[] = []
  for (const id of closed)
    signals.push(dataOf(await getJson(`${base}${API}/record/signals/${id}`)) as RevealedSignal)
  return { entries, signals, record }
}

async function fromFile(file: string): Promise<Loaded> {
  const body = dataOf(JSON.parse(await fs.readFile(file, 'utf8'))) as Partial<Loaded>
  if (!Array.isArray(body.entries)) throw new Error(`${file} holds no "entries" list`)
  return {
    entries: body.entries,
    signals: Array.isArray(body.signals) ? body.signals : [],
    ...(body.record ? { record: dataOf(body.record) as SignalRecord } : {}),
  }
}

async function main() {
  const args = process.argv.slice(2)
  const sinceAt = args.indexOf('--since')
  const sinceFile = sinceAt >= 0 ? args[sinceAt + 1] : undefined
  const source = args.find((arg, index) => !arg.startsWith('--') && (sinceAt < 0 || index !== sinceAt + 1))
  if (!source || (sinceAt >= 0 && !sinceFile)) {
    console.error('Usage: npm run verify-record -- <site URL or ledger file> [--since head.json]')
    process.exit(2)
  }
  const site = /^https?:\/\//.test(source) ? source.replace(/\/$/, '') : null
  const { entries, signals, record } = site ? await fromSite(site) : await fromFile(source)
  const result = verifyLedger(entries, signals, sha256)
  if (result.ok) {
    const figures = record ? checkRecordFigures(record, entries, signals, sha256) : undefined
    if (figures && !figures.ok) {
      console.log(`MISMATCH in the figures: ${figures.problem}`)
      process.exit(1)
    }
    const head = result.head ? ` Head: #${result.head.seq} ${result.head.hash}.` : ''
    console.log(
      `OK: ${result.entries} entries chain correctly and ${result.revealed} revealed signals match their commitments.${head}${figures ? ` Figures: ${figures.checked}.` : ''}`,
    )
    const saved = sinceFile ? await readSavedHead(sinceFile) : undefined
    const findings = site || saved ? await checkSignedLog(site, entries, saved) : []
    for (const finding of findings) console.log(finding.line)
    if (findings.some((finding) => !finding.ok)) process.exit(1)
    return
  }
  const where = result.seq !== null ? `entry #${result.seq}` : `signal ${result.signalId}`
  console.log(`MISMATCH at ${where}: ${result.problem}`)
  process.exit(1)
}

main().catch((error: unknown) => {
  console.error(`verify-record: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(2)
})
