import { Fragment, type ReactNode, useId, useState } from 'react'
import { useSearchParams } from 'react-router'
import { Button } from '../../components/ui/button'
import { failureText, smallInput } from '../../components/ui/console'
import { Alert, inputClasses } from '../../components/ui/field'
import { downloadCsv, type ListQuery, type ListSchema, useAdminList } from './admin-api'
import { pageSummary } from './page-summary'

export interface Column<T> {
  header: string
  /** The API's sortBy value, when the column sorts. */
  sortKey?: string
  render: (row: T) => ReactNode
}

export interface Filter {
  name: string
  label: string
  options: { value: string; label: string }[]
}

const PAGE_SIZES = [10, 20, 50, 100] as const
const DEFAULT_LIMIT = 20

/**
 * The table's query lives in the address (?q=…&page=2&sort=email&order=asc&status=active): opening a
 * member and coming back keeps the search, and a filtered list can be bookmarked or shared.
 */
function readQuery(
  params: URLSearchParams,
  sortKeys: string[],
  defaultSort: string,
  defaultOrder: 'asc' | 'desc',
  filters: Filter[],
): ListQuery {
  const page = Number.parseInt(params.get('page') ?? '', 10)
  const limit = Number(params.get('limit'))
  const sort = params.get('sort') ?? ''
  const order = params.get('order')
  return {
    page: Number.isFinite(page) && page > 0 ? page : 1,
    limit: (PAGE_SIZES as readonly number[]).includes(limit) ? limit : DEFAULT_LIMIT,
    search: params.get('q') ?? '',
    sortBy: sortKeys.includes(sort) ? sort : defaultSort,
    sortOrder: order === 'asc' || order === 'desc' ? order : defaultOrder,
    filters: Object.fromEntries(
      filters.map((filter) => {
        const value = params.get(filter.name) ?? ''
        return [filter.name, filter.options.some((option) => option.value === value) ? value : '']
      }),
    ),
  }
}

/** A searchable, sortable, paginated admin table over one list endpoint, with CSV export. */
export function DataTable<T extends { id: string }>({
  title,
  path,
  schema,
  columns,
  defaultSort,
  defaultOrder = 'desc',
  filters = [],
  exportName,
  searchLabel,
  rowActions,
  actionsHeader = 'Actions',
}: {
  title: string
  path: string
  /** The shared schema of the list's page: every page is checked with it. */
  schema: ListSchema<T>
  columns: Column<T>[]
  defaultSort: string
  defaultOrder?: 'asc' | 'desc'
  filters?: Filter[]
  exportName?: string
  searchLabel: string
  rowActions?: (row: T) => ReactNode
  actionsHeader?: string
}) {
  const [params, setParams] = useSearchParams()
  const sortKeys = columns.flatMap((column) => (column.sortKey ? [column.sortKey] : []))
  const query = readQuery(params, sortKeys, defaultSort, defaultOrder, filters)
  const [searchText, setSearchText] = useState(query.search)
  const [exporting, setExporting] = useState(false)
  const [exportNotice, setExportNotice] = useState<{ tone: 'success' | 'error'; text: string } | null>(null)
  const ids = useId().replace(/[^\w-]/g, '')
  const headingId = `table-${ids}`
  const list = useAdminList(path, query, schema)

  /** Changes the query in the address; page goes back to 1 unless it is the change. */
  const update = (changes: Record<string, string | number | null>) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current)
        if (!('page' in changes)) next.delete('page')
        for (const [key, value] of Object.entries(changes)) {
          if (value === null || value === '' || (key === 'page' && value === 1)) next.delete(key)
          else next.set(key, String(value))
        }
        return next
      },
      { replace: true },
    )

  const sortBy = (key: string) =>
    update({
      sort: key,
      order: query.sortBy === key && query.sortOrder === 'asc' ? 'desc' : 'asc',
    })

  const exportCsv = async () => {
    if (!exportName) return
    setExportNotice(null)
    setExporting(true)
    try {
      const file = await downloadCsv(path, query, exportName)
      setExportNotice({ tone: 'success', text: `Downloaded ${file}` })
    } catch (error) {
      setExportNotice({ tone: 'error', text: failureText(error, 'Export failed') })
    } finally {
      setExporting(false)
    }
  }

  const pagination = list.data?.pagination
  const items = list.data?.items ?? []
  const summary = pageSummary(pagination, items.length)
  const emptyText = query.search ? `Nothing matches "${query.search}".` : 'Nothing here yet.'

  return (
    <section aria-labelledby={headingId} className="rounded-2xl border border-slate-800 bg-slate-900/70">
      <div className="space-y-4 p-4 sm:p-6">
        {/* The page's h1 already says it; the heading stays for screen readers' outline. */}
        <h2 id={headingId} className="sr-only">
          {title}
        </h2>
        <form
          className="flex flex-wrap items-end gap-2"
          onSubmit={(event) => {
            event.preventDefault()
            update({ q: searchText.trim() || null })
          }}
        >
          <div className="w-full text-sm text-slate-300 sm:w-64">
            <label htmlFor={`${ids}-search`} className="mb-1 block">
              {searchLabel}
            </label>
            <input
              id={`${ids}-search`}
              type="search"
              className={inputClasses}
              value={searchText}
              maxLength={200}
              onChange={(event) => setSearchText(event.target.value)}
            />
          </div>
          {filters.map((filter) => (
            <div key={filter.name} className="text-sm text-slate-300">
              <label htmlFor={`${ids}-${filter.name}`} className="mb-1 block">
                {filter.label}
              </label>
              <select
                id={`${ids}-${filter.name}`}
                className={inputClasses}
                value={query.filters?.[filter.name] ?? ''}
                onChange={(event) => update({ [filter.name]: event.target.value || null })}
              >
                <option value="">All</option>
                {filter.options.map((option) => (
                  <option key={option.value} value={option.value}>
                    {option.label}
                  </option>
                ))}
              </select>
            </div>
          ))}
          {sortKeys.length > 0 ? (
            // Phones get the list as cards, without column headers: sorting is chosen here instead.
            <div className="text-sm text-slate-300 sm:hidden">
              <label htmlFor={`${ids}-sort`} className="mb-1 block">
                Sort by
              </label>
              <select
                id={`${ids}-sort`}
                className={inputClasses}
                value={`${query.sortBy}:${query.sortOrder}`}
                onChange={(event) => {
                  const [sort, order] = event.target.value.split(':')
                  update({ sort: sort ?? null, order: order ?? null })
                }}
              >
                {columns.flatMap((column) =>
                  column.sortKey
                    ? (['asc', 'desc'] as const).map((order) => (
                        <option key={`${column.sortKey}:${order}`} value={`${column.sortKey}:${order}`}>
                          {column.header} ({order === 'asc' ? 'ascending' : 'descending'})
                        </option>
                      ))
                    : [],
                )}
              </select>
            </div>
          ) : null}
          <Button type="submit" variant="secondary">
            Search
          </Button>
          {exportName ? (
            <Button variant="ghost" onClick={exportCsv} disabled={exporting}>
              {exporting ? 'Exporting...' : 'Export CSV'}
            </Button>
          ) : null}
        </form>
        {exportNotice ? <Alert tone={exportNotice.tone}>{exportNotice.text}</Alert> : null}
        {list.isError ? <Alert tone="error">{list.error.message}</Alert> : null}
      </div>
      {/* Phones: one card per row, every column labelled. */}
      <ul
        className="divide-y divide-slate-800 border-t border-slate-800 sm:hidden"
        aria-busy={list.isFetching}
      >
        {list.isPending ? (
          <li className="px-4 py-6 text-sm text-slate-300">Loading...</li>
        ) : items.length === 0 ? (
          <li className="px-4 py-6 text-sm text-slate-300">{emptyText}</li>
        ) : (
          items.map((row) => (
            <li key={row.id} className="space-y-3 px-4 py-4">
              <dl className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-4 gap-y-1.5 text-sm">
                {columns.map((column) => (
                  <Fragment key={column.header}>
                    <dt className="text-slate-400">{column.header}</dt>
                    <dd className="break-words text-slate-200">{column.render(row)}</dd>
                  </Fragment>
                ))}
              </dl>
              {rowActions ? <div>{rowActions(row)}</div> : null}
            </li>
          ))
        )}
      </ul>
      {/* Scrolls sideways on narrow screens; focusable so a keyboard can scroll it too. relative: the
          screen-reader-only labels inside the rows are positioned, and must scroll with the table. */}
      <div
        className="relative hidden overflow-x-auto focus-visible:outline-2 focus-visible:outline-emerald-300 sm:block"
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls must be reachable by keyboard (WCAG 2.1.1)
        tabIndex={0}
      >
        <table className="w-full min-w-[40rem] text-left text-sm" aria-busy={list.isFetching}>
          <thead className="border-y border-slate-800 bg-slate-900 text-slate-300">
            <tr>
              {columns.map((column) => (
                <th
                  key={column.header}
                  scope="col"
                  className="px-4 py-3 font-semibold"
                  aria-sort={
                    column.sortKey && query.sortBy === column.sortKey
                      ? query.sortOrder === 'asc'
                        ? 'ascending'
                        : 'descending'
                      : undefined
                  }
                >
                  {column.sortKey ? (
                    <button
                      type="button"
                      className="inline-flex items-center gap-1 rounded font-semibold hover:text-white focus-visible:outline-2 focus-visible:outline-emerald-300"
                      onClick={() => sortBy(column.sortKey!)}
                    >
                      {column.header}
                      <span aria-hidden="true" className="text-xs text-slate-500">
                        {query.sortBy === column.sortKey ? (query.sortOrder === 'asc' ? '▲' : '▼') : '↕'}
                      </span>
                    </button>
                  ) : (
                    column.header
                  )}
                </th>
              ))}
              {rowActions ? (
                <th scope="col" className="px-4 py-3 font-semibold">
                  <span className="sr-only">{actionsHeader}</span>
                </th>
              ) : null}
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-800">
            {list.isPending ? (
              <tr>
                <td colSpan={columns.length + 1} className="px-4 py-6 text-slate-300">
                  Loading...
                </td>
              </tr>
            ) : items.length === 0 ? (
              <tr>
                <td colSpan={columns.length + 1} className="px-4 py-6 text-slate-300">
                  {emptyText}
                </td>
              </tr>
            ) : (
              items.map((row) => (
                <tr key={row.id}>
                  {columns.map((column) => (
                    <td key={column.header} className="px-4 py-3 align-top text-slate-200">
                      {column.render(row)}
                    </td>
                  ))}
                  {rowActions ? <td className="px-4 py-3 align-top">{rowActions(row)}</td> : null}
                </tr>
              ))
            )}
          </tbody>
        </table>
      </div>
      <nav
        aria-label={`${title} pages`}
        className="flex flex-wrap items-center justify-between gap-3 p-4 text-sm text-slate-300 sm:px-6"
      >
        <p aria-live="polite">{summary.text}</p>
        <div className="flex flex-wrap items-center gap-x-4 gap-y-2">
          <div className="flex items-center gap-2">
            <label htmlFor={`${ids}-limit`}>Rows per page</label>
            <select
              id={`${ids}-limit`}
              className={`${smallInput} w-auto`}
              value={query.limit}
              onChange={(event) =>
                update({ limit: Number(event.target.value) === DEFAULT_LIMIT ? null : event.target.value })
              }
            >
              {PAGE_SIZES.map((size) => (
                <option key={size} value={size}>
                  {size}
                </option>
              ))}
            </select>
          </div>
          <div className="flex gap-2">
            <Button
              variant="secondary"
              className="px-3 py-1.5"
              disabled={query.page <= 1}
              onClick={() => update({ page: query.page - 1 })}
            >
              Previous
            </Button>
            <Button
              variant="secondary"
              className="px-3 py-1.5"
              disabled={!summary.hasNext}
              onClick={() => update({ page: query.page + 1 })}
            >
              Next
            </Button>
          </div>
        </div>
      </nav>
    </section>
  )
}
