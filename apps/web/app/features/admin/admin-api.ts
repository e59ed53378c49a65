import { API_BASE, type Pagination } from '@edgeclub/shared'
import { apiRequest, refreshAccessToken } from '../../lib/api-client'
import { session } from '../../lib/session-store'

export interface ListQuery {
  page: number
  limit: number
  search: string
  sortBy: string
  sortOrder: 'asc' | 'desc'
  filters?: Record<string, string>
}

export interface ListResult<T> {
  items: T[]
  pagination: Pagination
}

export function queryString(query: ListQuery, extra: Record<string, string> = {}): string {
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

/** GET an admin list; throws with the server's message so the table can show it. */
export async function fetchList<T>(path: string, query: ListQuery): Promise<ListResult<T>> {
  const result = await apiRequest<ListResult<T>>(`${path}?${queryString(query)}`)
  if (!result.success || !result.data) throw new Error(result.error ?? 'Could not load the list')
  return result.data
}

export async function fetchData<T>(path: string): Promise<T> {
  const result = await apiRequest<T>(path)
  if (!result.success || result.data === undefined) throw new Error(result.error ?? 'Could not load')
  return result.data
}

/** An admin action: resolves to the server's message, or throws it. */
export async function act<T = unknown>(
  path: string,
  method: 'POST' | 'PUT' | 'DELETE',
  body?: unknown,
): Promise<{ message: string; data: T }> {
  const result = await apiRequest<T>(path, { method, body })
  if (!result.success)
    throw Object.assign(new Error(result.error ?? 'The action failed'), { errors: result.errors })
  return { message: result.message ?? 'Done', data: result.data as T }
}

/** The filtered list as CSV: fetched with the bearer token (it is not a cookie), then saved as a file. */
export async function downloadCsv(path: string, query: ListQuery, name: string): Promise<string> {
  const url = `${API_BASE}${path}?${queryString({ ...query, page: 1 }, { format: 'csv' })}`
  const request = () => fetch(url, { headers: { authorization: `Bearer ${session.getState().token ?? ''}` } })
  let response = await request()
  if (response.status === 401 && (await refreshAccessToken())) response = await request()
  if (!response.ok) {
    const body = (await response.json().catch(() => undefined)) as { message?: string } | undefined
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
