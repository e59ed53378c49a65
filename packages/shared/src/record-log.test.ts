import { createHash, generateKeyPairSync, sign, webcrypto } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import {
  bytesToBase64,
  bytesToHex,
  checkWitness,
  headMessage,
  hexToBytes,
  leafHashOf,
  MerkleTree,
  type SignedHead,
  type SubtleLike,
  verifyConsistency,
  verifyInclusion,
} from './record-log'

const sha = (data: Uint8Array) => new Uint8Array(createHash('sha256').update(data).digest())
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex')
const subtle = webcrypto.subtle as unknown as SubtleLike

/**
 * An independent, deliberately naive RFC 9162 §2.1 implementation: MTH, PATH and PROOF exactly as the
 * RFC defines them, by recursion over lists of entry hashes (hex strings, hashed with Buffer.concat).
 */
const naive = {
  hash: (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest(),
  k: (n: number) => 2 ** Math.ceil(Math.log2(n) - 1),
  memo: new Map<string, Buffer>(),
  /** MTH(D), remembered by the range's first entry and length (the test's entries are all different). */
  mth(d: string[]): Buffer {
    if (d.length === 0) return naive.hash()
    const key = `${d[0]}:${d.length}`
    const known = naive.memo.get(key)
    if (known) return known
    const value = naive.compute(d)
    naive.memo.set(key, value)
    return value
  },
  compute(d: string[]): Buffer {
    if (d.length === 1) return naive.hash(Buffer.from([0]), Buffer.from(d[0]!, 'hex'))
    const k = naive.k(d.length)
    return naive.hash(Buffer.from([1]), naive.mth(d.slice(0, k)), naive.mth(d.slice(k)))
  },
  path(m: number, d: string[]): Buffer[] {
    if (d.length === 1) return []
    const k = naive.k(d.length)
    return m < k
      ? [...naive.path(m, d.slice(0, k)), naive.mth(d.slice(k))]
      : [...naive.path(m - k, d.slice(k)), naive.mth(d.slice(0, k))]
  },
  subproof(m: number, d: string[], b: boolean): Buffer[] {
    if (m === d.length) return b ? [] : [naive.mth(d)]
    const k = naive.k(d.length)
    return m <= k
      ? [...naive.subproof(m, d.slice(0, k), b), naive.mth(d.slice(k))]
      : [...naive.subproof(m - k, d.slice(k), false), naive.mth(d.slice(0, k))]
  },
}

const entryHashes = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    createHash('sha256')
      .update(`entry ${i + 1}`)
      .digest('hex'),
  )

describe('the signed log over the ledger (RFC 9162)', () => {
  const all = entryHashes(200)
  const tree = new MerkleTree(sha)
  for (const entry of all) tree.append(entry)

  it('roots of every size up to 200 match an independent implementation of MTH', () => {
    expect(hex(tree.root(0))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')
    for (let n = 1; n <= 200; n++) expect(hex(tree.root(n))).toBe(naive.mth(all.slice(0, n)).toString('hex'))
  })

  it('inclusion proofs for every entry of every size up to 200 equal RFC 9162 PATH and verify; a wrong leaf, index or root does not', {
    timeout: 120_000,
  }, async () => {
    for (let n = 1; n <= 200; n++) {
      const d = all.slice(0, n)
      const root = tree.root(n)
      for (let m = 0; m < n; m++) {
        const proof = tree.inclusionProof(m, n)
        expect(proof.map(hex)).toEqual(naive.path(m, d).map((b) => b.toString('hex')))
        const leaf = leafHashOf(d[m]!, sha)
        expect(await verifyInclusion(sha, m, n, leaf, proof, root)).toBe(true)
        if (n > 1) {
          expect(await verifyInclusion(sha, (m + 1) % n, n, leaf, proof, root)).toBe(false)
          expect(await verifyInclusion(sha, m, n, leafHashOf('cd'.repeat(32), sha), proof, root)).toBe(false)
        }
        expect(await verifyInclusion(sha, m, n, leaf, proof, tree.root(n - 1))).toBe(false)
      }
    }
  })

  it('consistency proofs between every pair of sizes up to 200 equal RFC 9162 PROOF and verify; a rewritten prefix does not', {
    timeout: 120_000,
  }, async () => {
    const rewritten = new MerkleTree(sha)
    for (const [i, entry] of all.entries()) rewritten.append(i === 6 ? 'ff'.repeat(32) : entry)
    for (let n = 1; n <= 200; n++) {
      const d = all.slice(0, n)
      for (let m = 1; m <= n; m++) {
        const proof = tree.consistencyProof(m, n)
        const expected = m === n ? [] : naive.subproof(m, d, true)
        expect(proof.map(hex)).toEqual(expected.map((b) => b.toString('hex')))
        expect(await verifyConsistency(sha, m, n, tree.root(m), tree.root(n), proof)).toBe(true)
        // A history rewritten at entry 7: the old root of any size past it no longer fits today's tree.
        if (m > 6)
          expect(
            await verifyConsistency(
              sha,
              m,
              n,
              tree.root(m),
              rewritten.root(n),
              rewritten.consistencyProof(m, n),
            ),
          ).toBe(false)
      }
      expect(await verifyConsistency(sha, 0, n, tree.root(0), tree.root(n), [])).toBe(true)
      if (n > 1)
        expect(await verifyConsistency(sha, n, n - 1, tree.root(n), tree.root(n - 1), [])).toBe(false)
    }
  })

  it('keeps answering the same after an append is rolled back', () => {
    const copy = new MerkleTree(sha)
    for (const entry of all.slice(0, 100)) copy.append(entry)
    copy.append('aa'.repeat(32))
    copy.truncate(100)
    for (const entry of all.slice(100)) copy.append(entry)
    expect(hex(copy.root())).toBe(hex(tree.root()))
    expect(copy.consistencyProof(37, 200).map(hex)).toEqual(tree.consistencyProof(37, 200).map(hex))
  })

  it('a member who kept a signed head catches a rewritten history, and a forged signature', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519')
    const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32)
    const signHead = (t: MerkleTree, size: number): SignedHead => {
      const head = { size, rootHash: bytesToHex(t.root(size)), timestamp: 1_796_000_000_000 + size }
      return { ...head, signature: bytesToBase64(sign(null, headMessage(head), privateKey)) }
    }
    const key = bytesToBase64(raw)
    const stored = signHead(tree, 50)
    const today = signHead(tree, 120)
    const proof = tree.consistencyProof(50, 120).map(bytesToHex)
    expect(await checkWitness({ subtle, publicKey: key, stored, current: today, proof })).toEqual({
      ok: true,
      head: today,
    })
    expect(
      await checkWitness({ subtle, publicKey: key, stored: null, current: today, proof: [] }),
    ).toMatchObject({
      ok: true,
    })

    const rewritten = new MerkleTree(sha)
    for (const [i, entry] of all.entries()) rewritten.append(i === 20 ? 'ab'.repeat(32) : entry)
    const liar = signHead(rewritten, 120)
    const check = await checkWitness({
      subtle,
      publicKey: key,
      stored,
      current: liar,
      proof: rewritten.consistencyProof(50, 120).map(bytesToHex),
    })
    expect(check).toMatchObject({ ok: false, forked: true, problem: expect.stringMatching(/rewritten/) })

    const forged = { ...today, rootHash: liar.rootHash }
    expect(await checkWitness({ subtle, publicKey: key, stored, current: forged, proof })).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/signature/),
    })
    expect(
      await checkWitness({ subtle, publicKey: key, stored: today, current: stored, proof: [] }),
    ).toMatchObject({ ok: false, problem: expect.stringMatching(/removed/) })
    expect(hexToBytes(stored.rootHash)).toHaveLength(32)
  })
})
