import { createHash } from 'node:crypto'
import { bytesToHex, headMessage, MerkleTree, type SignedHead } from '@edgeclub/shared'
import type { FastifyBaseLogger } from 'fastify'
import type { Kysely, Transaction } from 'kysely'
import type { DB, LedgerHeadRow } from '../../../db/types'
import type { Clock } from '../../../lib/clock'
import { badRequest, notFound } from '../../../lib/errors'
import type { RecordLogRepository } from './record-log-repository'
import type { LedgerKey } from './signing-key'

type Executor = Kysely<DB> | Transaction<DB>

const sha256 = (data: Uint8Array) => new Uint8Array(createHash('sha256').update(data).digest())

const toHead = (row: LedgerHeadRow): SignedHead => ({
  size: row.size,
  rootHash: row.root_hash,
  timestamp: row.timestamp,
  signature: row.signature,
})

/**
 * The signed, append-only log over the ledger (RFC 9162, decision 020). Each append signs the head of
 * its size in the ledger's transaction (`signAppended`); heads and proofs are read from here.
 *
 * The tree stays in memory, built once and extended as entries arrive: every request first compares
 * the ledger's last entry with the tree's (one indexed read), extends the tree when the ledger grew on
 * top of it, and rebuilds it from the entry hashes when the ledger no longer continues it (an append
 * rolled back, or a history rewritten underneath). Proofs never rehash the log.
 */
export function createRecordLog(deps: {
  repo: RecordLogRepository
  key: LedgerKey
  clock: Clock
  log: FastifyBaseLogger
}) {
  const { repo, key } = deps
  let cache = { tree: new MerkleTree(sha256), lastHash: null as string | null }

  /** The tree of the ledger as `ex` sees it now (at least that many entries). */
  async function treeOf(ex: Executor): Promise<MerkleTree> {
    for (;;) {
      const head = await repo.ledgerHead(ex)
      const size = head?.seq ?? 0
      const current = cache
      const before = current.tree.size
      if (before === size && current.lastHash === (head?.hash ?? null)) return current.tree
      if (before > 0 && before < size) {
        // The entry the tree ends with, and what came after it.
        const rows = await repo.entryHashes(before - 1, ex)
        if (cache !== current || current.tree.size !== before) continue
        if (rows[0]?.seq === before && rows[0].hash === current.lastHash) {
          for (const [index, row] of rows.slice(1).entries()) {
            if (row.seq !== before + index + 1) break
            current.tree.append(row.hash)
            current.lastHash = row.hash
          }
          if (current.tree.size >= size) return current.tree
        }
      }
      const rows = await repo.entryHashes(0, ex)
      const tree = new MerkleTree(sha256)
      for (const [index, row] of rows.entries()) {
        if (row.seq !== index + 1) throw new Error(`the ledger has no entry ${index + 1}`)
        tree.append(row.hash)
      }
      if (size > 0 && before > 0)
        deps.log.info({ was: before, now: rows.length }, 'the record tree was rebuilt from the ledger')
      cache = { tree, lastHash: rows.at(-1)?.hash ?? null }
      return tree
    }
  }

  function signHead(size: number, rootHash: string): SignedHead {
    const head = { size, rootHash, timestamp: deps.clock.now().getTime() }
    return { ...head, signature: key.sign(headMessage(head)) }
  }

  /** The newest signed head: the log's size now (what is committed). */
  async function latest(ex: Executor = repo.db): Promise<SignedHead> {
    const row = await repo.latestHead(ex)
    if (!row) throw notFound('The record has no signed head yet.')
    return toHead(row)
  }

  function withinLog(size: number, newest: number, name: string) {
    if (size > newest)
      throw badRequest(`${name} must be at most ${newest}: the record has ${newest} entries.`, [
        { field: name, message: `at most ${newest}` },
      ])
  }

  return {
    publicKey: key.publicKey,

    /**
     * At start, under the ledger's lock: every size of the ledger gets its signed head, so a ledger
     * that predates the signed log (or a size whose head is missing) is signed now, with this time.
     */
    async init(): Promise<void> {
      const signed = await repo.transaction(async (trx) => {
        await repo.lockLedger(trx)
        const tree = await treeOf(trx)
        const have = new Set(await repo.sizesWithHeads(trx))
        const missing: SignedHead[] = []
        for (let size = 0; size <= tree.size; size++)
          if (!have.has(size)) missing.push(signHead(size, bytesToHex(tree.root(size))))
        await repo.insertHeads(missing, trx)
        return missing.length
      })
      if (signed > 0) deps.log.info({ heads: signed }, 'signed the record heads the ledger had no head for')
      const newest = await latest()
      if (!key.verify(headMessage(newest), newest.signature))
        deps.log.error(
          { size: newest.size },
          "the record's newest head was not signed with this signing key: set LEDGER_SIGNING_KEY to the key it was signed with",
        )
    },

    /** In the append's transaction (the ledger lock held, the entry inserted): its size's signed head. */
    async signAppended(trx: Transaction<DB>, seq: number): Promise<SignedHead> {
      const tree = await treeOf(trx)
      const head = signHead(seq, bytesToHex(tree.root(seq)))
      await repo.insertHeads([head], trx)
      return head
    },

    latest: () => latest(),

    /** GET /record/head?size=N: the head signed at that size. */
    async headAt(size: number): Promise<SignedHead> {
      const newest = await latest()
      withinLog(size, newest.size, 'size')
      const [row] = await repo.headsAt([size])
      if (!row) throw notFound(`The record has no signed head for size ${size}.`)
      return toHead(row)
    },

    /** The signed heads of these sizes (for the deliveries of the entries that made them). */
    async headsAt(sizes: number[]): Promise<Map<number, SignedHead>> {
      return new Map((await repo.headsAt(sizes)).map((row) => [row.size, toHead(row)]))
    },

    async inclusion(seq: number, size: number): Promise<string[]> {
      const newest = await latest()
      withinLog(size, newest.size, 'size')
      if (seq > size)
        throw badRequest(`seq must be at most size (${size}).`, [
          { field: 'seq', message: `at most ${size}` },
        ])
      return (await treeOf(repo.db)).inclusionProof(seq - 1, size).map(bytesToHex)
    },

    async consistency(from: number, to: number): Promise<string[]> {
      const newest = await latest()
      withinLog(to, newest.size, 'to')
      if (from > to)
        throw badRequest(`from must be at most to (${to}).`, [{ field: 'from', message: `at most ${to}` }])
      return (await treeOf(repo.db)).consistencyProof(from, to).map(bytesToHex)
    },
  }
}
export type RecordLog = ReturnType<typeof createRecordLog>
