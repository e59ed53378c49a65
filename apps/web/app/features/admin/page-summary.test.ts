import { describe, expect, it } from 'vitest'
import { pageSummary } from './page-summary'

describe('the admin lists’ page summary', () => {
  it('ADMIN-02 names the rows shown, the total and the pages; the last page has no next', () => {
    expect(pageSummary({ page: 1, limit: 20, total: 45, pages: 3 }, 20)).toEqual({
      text: 'Showing 1–20 of 45 · page 1 of 3',
      hasNext: true,
    })
    expect(pageSummary({ page: 3, limit: 20, total: 45, pages: 3 }, 5)).toEqual({
      text: 'Showing 41–45 of 45 · page 3 of 3',
      hasNext: false,
    })
    expect(pageSummary({ page: 1, limit: 20, total: 0, pages: 0 }, 0)).toEqual({
      text: '0 results',
      hasNext: false,
    })
  })

  it('ADMIN-02 a broad search counted only so far says "at least", and a full page still has a next', () => {
    expect(pageSummary({ page: 50, limit: 20, total: 1000, pages: 50, atLeast: true }, 20)).toEqual({
      text: 'Showing 981–1000 of 1000+ · page 50 of 50+',
      hasNext: true,
    })
  })
})
