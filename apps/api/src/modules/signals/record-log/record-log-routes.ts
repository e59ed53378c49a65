import {
  ConsistencyQuerySchema,
  InclusionQuerySchema,
  RecordHeadQuerySchema,
  RecordKeySchema,
  RecordProofSchema,
  SignedHeadSchema,
} from '@edgeclub/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { envelope, ok } from '../../../lib/envelope'
import type { RecordLog } from './record-log-service'

/** The signed log of the public record (RFC 9162): key, signed heads, inclusion and consistency proofs. */
export const recordLogRoutes: FastifyPluginAsyncZod<{ recordLog: RecordLog }> = async (
  app,
  { recordLog },
) => {
  const tags = ['record']

  app.get(
    '/record/key',
    {
      schema: {
        tags,
        summary: "The club's Ed25519 public key, which signs every head of the record",
        response: { 200: envelope(RecordKeySchema) },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=3600')
      return ok({ algorithm: 'Ed25519' as const, publicKey: recordLog.publicKey })
    },
  )

  app.get(
    '/record/head',
    {
      schema: {
        tags,
        summary:
          'The signed head of the record: its Merkle tree root (RFC 9162) at the newest size, or at `size`',
        querystring: RecordHeadQuerySchema,
        response: { 200: envelope(SignedHeadSchema) },
      },
    },
    async (request, reply) => {
      const { size } = request.query
      reply.header('cache-control', size === undefined ? 'no-cache' : 'public, max-age=300')
      return ok(size === undefined ? await recordLog.latest() : await recordLog.headAt(size))
    },
  )

  app.get(
    '/record/proof/inclusion',
    {
      schema: {
        tags,
        summary:
          'The RFC 9162 inclusion proof (audit path) of ledger entry `seq` in the tree of `size` entries',
        querystring: InclusionQuerySchema,
        response: { 200: envelope(RecordProofSchema) },
      },
    },
    async (request) => ok({ proof: await recordLog.inclusion(request.query.seq, request.query.size) }),
  )

  app.get(
    '/record/proof/consistency',
    {
      schema: {
        tags,
        summary:
          'The RFC 9162 consistency proof that the tree of `from` entries is a prefix of the tree of `to` entries',
        querystring: ConsistencyQuerySchema,
        response: { 200: envelope(RecordProofSchema) },
      },
    },
    async (request) => ok({ proof: await recordLog.consistency(request.query.from, request.query.to) }),
  )
}
