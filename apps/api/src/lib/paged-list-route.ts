import type { FastifyInstance, FastifyReply } from 'fastify'
import { z } from 'zod'
import { type CsvColumn, toCsv } from './csv'
import { envelope, ok } from './envelope'

const ExportQuery = z.object({ format: z.literal('csv').optional() })
/** Rows in one CSV export: a spreadsheet's worth, read in one page. */
const EXPORT_LIMIT = 10_000

function sendCsv(reply: FastifyReply, name: string, body: string) {
  return reply
    .header('content-type', 'text/csv; charset=utf-8')
    .header(
      'content-disposition',
      `attachment; filename="${name}-${new Date().toISOString().slice(0, 10)}.csv"`,
    )
    .send(body)
}

/**
 * An admin list: GET `url` with its list query answers a page in the envelope, and `?format=csv`
 * answers the whole filtered list (up to EXPORT_LIMIT rows) as a CSV file with `columns`.
 */
export function pagedListRoute<
  Query extends z.ZodObject,
  Page extends z.ZodObject<{ items: z.ZodArray<z.ZodType> }>,
>(
  app: FastifyInstance,
  route: {
    url: string
    tags: string[]
    summary: string
    query: Query
    page: Page
    list: (query: z.infer<Query> & { page: number; limit: number }) => Promise<z.infer<Page>>
    csv: { name: string; columns: CsvColumn<z.infer<Page>['items'][number]>[] }
  },
): void {
  app.get(
    route.url,
    {
      schema: {
        tags: route.tags,
        security: [{ bearerAuth: [] }],
        summary: `${route.summary}; ?format=csv exports`,
        querystring: route.query.extend(ExportQuery.shape),
        response: { 200: envelope(route.page) },
      },
    },
    async (request, reply) => {
      // Validated by the querystring schema above.
      const { format, ...query } = request.query as z.infer<Query> & {
        format?: 'csv'
        page: number
        limit: number
      }
      if (format !== 'csv') return ok(await route.list(query as never))
      const { items } = await route.list({ ...query, page: 1, limit: EXPORT_LIMIT } as never)
      return sendCsv(reply, route.csv.name, toCsv(items, route.csv.columns))
    },
  )
}
