import {
  AdminPlanPageSchema,
  AnalyticsSchema,
  API_BASE,
  type ApiEnvelope,
  DiscordHealthSchema,
  type Pagination,
  ReconciliationIssuesSchema,
  ReconciliationRunSchema,
} from '@edgeclub/shared'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import type { z } from 'zod'
import { act, apiRequest, fetchData, refreshAccessToken } from '../../lib/api-client'

export { act, fetchData }

import { session } from '../../lib/session-store'

export interface ListQuery {
  page: number
  limit: number
  search: string
  sortBy: string
  sortOrder: 'asc' | 'desc'
  filters?: Record<string, string>
}

/** One page of any admin list; each list's shared schema (AdminUserPageSchema...) has this shape. */
export interface ListResult<T> {
  items: T[]
  pagination: Pagination
}

/** The shared schema of an admin list's page. */
export type ListSchema<T> = z.ZodType<ListResult<T>>

function queryString(query: ListQuery, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams({
    page: String(query.page),
    limit: String(query.limit),
    sortBy: query.sortBy,
    sortOrder: query.sortOrder,
    ...(query.search.trim() ? { search: query.search.trim() } : {}),
    ...Object.fromEntries(Object.entries(query.filters ?? {}).filter(([, value]) => value !== '')),
    ...extra,
  })
  return params.toString()
}

/** GET an admin list, checked with its schema; throws with the server's message so the table can show it. */
export async function fetchList<T>(
  path: string,
  query: ListQuery,
  schema: ListSchema<T>,
): Promise<ListResult<T>> {
  const result = await apiRequest(`${path}?${queryString(query)}`, { schema })
  if (!result.success || !result.data) throw new Error(result.error ?? 'Could not load the list')
  return result.data
}

/** The filtered list as CSV: fetched with the bearer token (it is not a cookie), then saved as a file. */
export async function downloadCsv(path: string, query: ListQuery, name: string): Promise<string> {
  const url = `${API_BASE}${path}?${queryString({ ...query, page: 1 }, { format: 'csv' })}`
  const request = () => fetch(url, { headers: { authorization: `Bearer ${session.getState().token ?? ''}` } })
  let response = await request()
  if (response.status === 401 && (await refreshAccessToken())) response = await request()
  if (!response.ok) {
    const body = (await response.json().catch(() => undefined)) as ApiEnvelope<unknown> | undefined
    throw new Error(body?.message ?? `Export failed (${response.status})`)
  }
  // The server names the file (members-2026-01-31.csv); the name given here is the fallback.
  const fileName =
    /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? `${name}.csv`
  const blob = await response.blob()
  const link = document.createElement('a')
  link.href = URL.createObjectURL(blob)
  link.download = fileName
  document.body.appendChild(link)
  link.click()
  link.remove()
  // Revoked after the click has been handled: some browsers read the URL asynchronously.
  setTimeout(() => URL.revokeObjectURL(link.href), 1_000)
  return fileName
}

/** One page of an admin list; the previous page stays on screen while the next one loads. */
export function useAdminList<T>(path: string, query: ListQuery, schema: ListSchema<T>) {
  return useQuery({
    queryKey: ['admin', path, query],
    queryFn: () => fetchList(path, query, schema),
    placeholderData: keepPreviousData,
  })
}

/** GET /admin/analytics: USD figures of the whole club. */
export function useAnalytics() {
  return useQuery({
    queryKey: ['admin', 'analytics'],
    queryFn: () => fetchData('/admin/analytics', AnalyticsSchema),
  })
}

/** Money a processor holds that the ledger could not match: the reconciliation sweep's open findings. */
export function useReconciliationIssues() {
  return useQuery({
    queryKey: ['admin', 'reconciliation'],
    queryFn: () => fetchData('/admin/reconciliation', ReconciliationIssuesSchema),
  })
}

/** Runs the reconciliation now; the answer's message says what it found. */
export async function runReconciliation() {
  return apiRequest('/admin/reconciliation/run', { method: 'POST', schema: ReconciliationRunSchema })
}

/** Whether the Discord bot can do its work, and how many member roles are out of step. */
export function useDiscordHealth() {
  return useQuery({
    queryKey: ['admin', 'discord-health'],
    queryFn: () => fetchData('/admin/discord/health', DiscordHealthSchema),
  })
}

/** Every plan, archived ones included, for the plans editor. */
export function useAdminPlans() {
  return useQuery({
    queryKey: ['admin', 'plans'],
    queryFn: () =>
      fetchList(
        '/admin/plans',
        {
          page: 1,
          limit: 100,
          search: '',
          sortBy: 'sortOrder',
          sortOrder: 'asc',
          filters: { includeArchived: 'true' },
        },
        AdminPlanPageSchema,
      ),
  })
}
