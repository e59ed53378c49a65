import { execFile } from 'node:child_process'
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  randomBytes,
  sign,
  verify,
  webcrypto,
} from 'node:crypto'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import {
  bytesToHex,
  checkWitness,
  entryPreimage,
  headMessage,
  hexToBytes,
  type LedgerEntry,
  leafHashOf,
  MerkleTree,
  type SignedHead,
  type SubtleLike,
  verifyConsistency,
  verifyInclusion,
} from '@edgeclub/shared'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { as, login, type Session } from './helpers/members'
import { createTestApp, type TestApp, testClock } from './helpers/test-app'

const API = '/discord/api'
const ADMIN = { email: 'record.log@edgeclub.test', password: 'Ops$ecret123' }
const MINUTE = 60_000
const root = path.resolve(import.meta.dirname, '../../..')
const sha = (data: Uint8Array) => new Uint8Array(createHash('sha256').update(data).digest())
const shaText = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex')
const subtle = webcrypto.subtle as unknown as SubtleLike

/** The club's key as the operator holds it (LEDGER_SIGNING_KEY: a 32-byte seed, base64). */
const seed = randomBytes(32)
const privateKey = createPrivateKey({
  key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]),
  format: 'der',
  type: 'pkcs8',
})
const publicKey = createPublicKey(privateKey)
const publicKeyBase64 = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64')
const signatureHolds = (head: SignedHead) =>
  verify(null, headMessage(head), publicKey, Buffer.from(head.signature, 'base64'))

const run = promisify(execFile)
const cli = (...args: string[]) =>
  run(process.execPath, ['--import', 'tsx', 'scripts/verify-record.ts', ...args], { cwd: root }).then(
    (result) => ({ code: 0, out: result.stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, out: error.stdout }),
  )

describe('the signed record log', () => {
  let t: TestApp
  let origin: string
  let admin: Session
  const clock = testClock()

  beforeAll(async () => {
    t = await createTestApp({
      clock,
      env: {
        ADMIN_EMAIL: ADMIN.email,
        ADMIN_PASSWORD: ADMIN.password,
        LEDGER_SIGNING_KEY: seed.toString('base64'),
      },
    })
    origin = await t.app.listen({ port: 0, host: '127.0.0.1' })
    admin = await login(t.app, ADMIN.email, ADMIN.password)
  })
  afterAll(async () => {
    await t?.close()
  })

  const get = (url: string) => t.app.inject({ method: 'GET', url: `${API}${url}` })
  const data = async <T>(url: string): Promise<T> => {
    const response = await get(url)
    expect(response.statusCode, response.body).toBe(200)
    return response.json().data as T
  }
  const publish = async () => {
    const response = await as(t.app, admin.accessToken, {
      method: 'POST',
      url: `${API}/signals`,
      payload: {
        kind: 'pick',
        sport: 'NFL',
        event: 'Chiefs vs Bills',
        startsAt: new Date(clock.now().getTime() + 2 * MINUTE).toISOString(),
        market: 'spread',
        selection: 'Chiefs -3.5',
        odds: 1.91,
        stake: 1,
      },
    })
    expect(response.statusCode, response.body).toBe(201)
    return response.json().data as { id: string }
  }
  const close = async (id: string, action: 'settle' | 'void', payload: object) => {
    const response = await as(t.app, admin.accessToken, {
      method: 'POST',
      url: `${API}/signals/${id}/${action}`,
      payload,
    })
    expect(response.statusCode, response.body).toBe(200)
  }
  const ledger = async () => (await data<{ entries: LedgerEntry[] }>('/record/ledger?limit=1000')).entries

  it('publishes its Ed25519 key and a signed head of the empty record', async () => {
    expect(await data('/record/key')).toEqual({ algorithm: 'Ed25519', publicKey: publicKeyBase64 })
    const head = await data<SignedHead>('/record/head')
    expect(head).toMatchObject({
      size: 0,
      rootHash: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      timestamp: expect.any(Number),
      signature: expect.stringMatching(/^[A-Za-z0-9+/]{86}==$/),
    })
    expect(signatureHolds(head)).toBe(true)
  })

  it('signs a head at every append; its root is the RFC 9162 tree of the entries, and every inclusion and consistency proof verifies', async () => {
    const a = await publish()
    const b = await publish()
    const c = await publish()
    clock.advance(3 * MINUTE)
    await close(a.id, 'settle', { result: 'won' })
    await close(b.id, 'settle', { result: 'lost' })
    await close(c.id, 'void', { reason: 'Game postponed', afterStart: true })
    const entries = await ledger()
    expect(entries).toHaveLength(6)
    const tree = new MerkleTree(sha)
    const heads: SignedHead[] = []
    for (const entry of entries) {
      tree.append(entry.hash)
      const head = await data<SignedHead>(`/record/head?size=${entry.seq}`)
      expect(head.size).toBe(entry.seq)
      expect(head.rootHash).toBe(bytesToHex(tree.root()))
      expect(signatureHolds(head)).toBe(true)
      heads.push(head)
    }
    // The newest head is the one signed at the last append, not a new one.
    expect(await data('/record/head')).toEqual(heads.at(-1))
    for (let size = 1; size <= 6; size++) {
      for (let seq = 1; seq <= size; seq++) {
        const { proof } = await data<{ proof: string[] }>(`/record/proof/inclusion?seq=${seq}&size=${size}`)
        const leaf = leafHashOf(entries[seq - 1]!.hash, sha)
        expect(
          await verifyInclusion(
            sha,
            seq - 1,
            size,
            leaf,
            proof.map(hexToBytes),
            hexToBytes(heads[size - 1]!.rootHash),
          ),
        ).toBe(true)
      }
      for (let from = 1; from <= size; from++) {
        const { proof } = await data<{ proof: string[] }>(`/record/proof/consistency?from=${from}&to=${size}`)
        expect(
          await verifyConsistency(
            sha,
            from,
            size,
            hexToBytes(heads[from - 1]!.rootHash),
            hexToBytes(heads[size - 1]!.rootHash),
            proof.map(hexToBytes),
          ),
        ).toBe(true)
      }
    }
  })

  it('answers a malformed or out-of-range head or proof request with a 400 envelope', async () => {
    const size = (await data<SignedHead>('/record/head')).size
    for (const url of [
      '/record/head?size=abc',
      '/record/head?size=-1',
      `/record/head?size=${size + 1}`,
      '/record/proof/inclusion?seq=0&size=1',
      `/record/proof/inclusion?seq=2&size=1`,
      `/record/proof/inclusion?seq=1&size=${size + 1}`,
      '/record/proof/inclusion?size=1',
      '/record/proof/consistency?from=3&to=2',
      `/record/proof/consistency?from=1&to=${size + 1}`,
      '/record/proof/consistency?from=x&to=2',
    ]) {
      const response = await get(url)
      expect(response.statusCode, url).toBe(400)
      expect(response.json(), url).toMatchObject({
        success: false,
        error: 'VALIDATION_ERROR',
        message: expect.any(String),
      })
    }
  })

  it("a settled entry rewritten in SQL, with the chain and the signed tree recomputed by the operator, is caught by a member's stored head, by verify-record --since and by the site's own heads", async () => {
    const lost = await publish()
    await publish()
    clock.advance(3 * MINUTE)
    await close(lost.id, 'settle', { result: 'lost' })
    // A member's browser keeps the head it saw on its visit.
    const stored = await data<SignedHead>('/record/head')
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'edgeclub-witness-'))
    try {
      const headFile = path.join(dir, 'head.json')
      await fs.writeFile(headFile, JSON.stringify(stored))
      const honest = await cli(origin, '--since', headFile)
      expect(honest.out).toContain(`Signing key (Ed25519): ${publicKeyBase64}`)
      expect(honest.out).toContain(
        `Consistent: today's head #${stored.size} extends the saved head #${stored.size}`,
      )
      expect(honest.code).toBe(0)

      // The dishonest operator: triggers off, the lost pick becomes a win, every later hash and every
      // signed head from there on recomputed with the club's own key.
      const db = t.database.db
      const entries = await ledger()
      const target = entries.find((entry) => entry.type === 'settle' && entry.signalId === lost.id)!
      await sql`alter table signal_ledger disable trigger user`.execute(db)
      await sql`alter table ledger_heads disable trigger user`.execute(db)
      let prevHash = entries[target.seq - 2]!.hash
      for (const entry of entries.slice(target.seq - 1)) {
        const data = entry.seq === target.seq ? { result: 'won', profitUnits: 0.91 } : entry.data
        const unsigned = {
          seq: entry.seq,
          type: entry.type,
          signalId: entry.signalId,
          at: entry.at,
          prevHash,
          data,
        }
        const hash = shaText(entryPreimage(unsigned as Omit<LedgerEntry, 'hash'>))
        await sql`update signal_ledger set data = ${JSON.stringify(data)}::json, prev_hash = ${prevHash},
          hash = ${hash} where seq = ${entry.seq}`.execute(db)
        prevHash = hash
      }
      const rows = await sql<{ hash: string }>`select hash from signal_ledger order by seq`.execute(db)
      const forged = new MerkleTree(sha)
      for (const row of rows.rows) forged.append(row.hash)
      await sql`delete from ledger_heads where size >= ${target.seq}`.execute(db)
      for (let size = target.seq; size <= forged.size; size++) {
        const head = { size, rootHash: bytesToHex(forged.root(size)), timestamp: Date.now() }
        const signature = sign(null, headMessage(head), privateKey).toString('base64')
        await sql`insert into ledger_heads (size, root_hash, timestamp, signature)
          values (${size}, ${head.rootHash}, ${head.timestamp}, ${signature})`.execute(db)
      }
      await sql`alter table signal_ledger enable trigger user`.execute(db)
      await sql`alter table ledger_heads enable trigger user`.execute(db)
      // Business goes on: one more pick is published on top of the rewritten history.
      await publish()

      // The chain alone cannot tell: every hash was recomputed.
      const chainOnly = await cli(origin)
      expect(chainOnly.out).toMatch(/^OK: \d+ entries chain correctly/)
      expect(chainOnly.code).toBe(0)

      // The member's stored head: today's head does not extend it.
      const today = await data<SignedHead>('/record/head')
      expect(signatureHolds(today)).toBe(true)
      const { proof } = await data<{ proof: string[] }>(
        `/record/proof/consistency?from=${stored.size}&to=${today.size}`,
      )
      expect(
        await checkWitness({ subtle, publicKey: publicKeyBase64, stored, current: today, proof }),
      ).toMatchObject({
        ok: false,
        forked: true,
        problem: expect.stringMatching(/history was rewritten/),
      })

      // The site's own head for the member's size now differs, and both carry the club's signature.
      const again = await data<SignedHead>(`/record/head?size=${stored.size}`)
      expect(again.rootHash).not.toBe(stored.rootHash)
      expect(signatureHolds(again) && signatureHolds(stored)).toBe(true)

      const caught = await cli(origin, '--since', headFile)
      expect(caught.out).toContain(`FORKED HISTORY: two different signed heads for size ${stored.size}`)
      expect(caught.out).toContain(`REWRITTEN: the ledger's first ${stored.size} entries are not the ones`)
      expect(caught.code).toBe(1)
    } finally {
      await fs.rm(dir, { recursive: true, force: true })
    }
  }, 240_000)
})
