import { z } from 'zod'
import { text } from './text'

export const PageQuerySchema = z.object({
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  search: text().trim().max(200).optional(),
  sortOrder: z.enum(['asc', 'desc']).default('desc'),
})

export const PaginationSchema = z.object({
  page: z.number().int(),
  limit: z.number().int(),
  total: z.number().int(),
  pages: z.number().int(),
  /**
   * Present (true) when a broad text search was counted only this far: there are at least `total`
   * matches, and at least `pages` pages ("1,000+").
   */
  atLeast: z.literal(true).optional(),
})
export type Pagination = z.infer<typeof PaginationSchema>
