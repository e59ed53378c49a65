import { z } from 'zod'

/** The API's view of the signed log (record-log.ts explains the hashes and the signature). */
export const SignedHeadSchema = z
  .object({
    size: z.number().int().describe('How many ledger entries the tree holds'),
    rootHash: z.string().describe('RFC 9162 Merkle tree hash of the first `size` entries, lowercase hex'),
    timestamp: z.number().int().describe('When it was signed, in milliseconds since the Unix epoch'),
    signature: z
      .string()
      .describe('Ed25519 signature (base64) of the RFC 8785 canonical JSON of { size, rootHash, timestamp }'),
  })
  .describe('A signed head of the record: the root of its Merkle tree at one size')

export const RecordKeySchema = z.object({
  algorithm: z.literal('Ed25519'),
  publicKey: z.string().describe('The raw 32-byte Ed25519 public key, base64'),
})

export const RecordProofSchema = z.object({
  proof: z.array(z.string()).describe('RFC 9162 proof nodes, lowercase hex, in order'),
})

const count = (name: string) =>
  z.coerce
    .number({ message: `${name} must be a whole number` })
    .int(`${name} must be a whole number`)
    .min(0, `${name} must be 0 or more`)
    .max(Number.MAX_SAFE_INTEGER, `${name} is too large`)

export const RecordHeadQuerySchema = z.object({
  size: count('size').optional().describe('The size whose signed head to give (default: the newest)'),
})
export const InclusionQuerySchema = z.object({
  seq: count('seq').min(1, 'seq must be 1 or more').describe("The entry's sequence number"),
  size: count('size').describe('The tree size the proof is for'),
})
export const ConsistencyQuerySchema = z.object({
  from: count('from').describe('The earlier tree size'),
  to: count('to').describe('The later tree size'),
})
