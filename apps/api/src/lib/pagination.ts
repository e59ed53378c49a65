/** The pagination block of every list response: where this page is and how many there are. */
export function pages(page: number, limit: number, total: number) {
  return { page, limit, total, pages: Math.ceil(total / limit) }
}
