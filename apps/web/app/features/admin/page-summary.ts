import type { Pagination } from '@edgeclub/shared'

/**
 * What the list's footer says of the page shown, and whether a next page may exist. A broad search
 * counted only so far (`atLeast`) reads "of 1000+ · page 1 of 50+", and a full page always has a next.
 */
export function pageSummary(pagination: Pagination | undefined, rowsShown: number) {
  if (!pagination) return { text: '', hasNext: false }
  if (pagination.total === 0) return { text: '0 results', hasNext: false }
  const first = (pagination.page - 1) * pagination.limit + 1
  const last = Math.min(pagination.total, first + rowsShown - 1)
  const lastPage = Math.max(1, pagination.pages)
  const more = pagination.atLeast === true ? '+' : ''
  return {
    text: `Showing ${first}–${last} of ${pagination.total}${more} · page ${pagination.page} of ${lastPage}${more}`,
    hasNext: pagination.page < lastPage || (more !== '' && rowsShown === pagination.limit),
  }
}
