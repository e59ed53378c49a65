import { invalidRequest } from './errors'
import type { Params } from './form'
import type { Store } from './store'

/**
 * Turns stored objects into response bodies: a deep copy with `expand[]` applied. Expandable fields
 * are stored as ids and swapped for the object on request; includable fields (an invoice's
 * `payments` and `confirmation_secret`, a charge's `refunds`) are only present when expanded, as on Stripe.
 */

type Json = Record<string, unknown>
export type Includable = (parent: Json) => unknown

export interface ListPage<T> {
  object: 'list'
  data: T[]
  has_more: boolean
  url: string
}

export class Renderer {
  private readonly includables = new Map<string, Includable>()

  constructor(private readonly store: Store) {}

  /** Registers `object.field` as includable (present only when expanded). */
  include(object: string, field: string, compute: Includable): void {
    this.includables.set(`${object}.${field}`, compute)
  }

  render(value: object, expand: string[] = []): Json {
    const copy = structuredClone(value) as Json
    for (const path of expand) this.expandPath(copy, path.split('.'), path)
    return copy
  }

  private expandPath(node: unknown, path: string[], full: string): void {
    const [head, ...rest] = path
    if (!head || node === null || typeof node !== 'object') return
    if (Array.isArray(node)) {
      for (const item of node) this.expandPath(item, path, full)
      return
    }
    const json = node as Json
    if (json.object === 'list' && head === 'data' && Array.isArray(json.data)) {
      for (const item of json.data) this.expandPath(item, rest, full)
      return
    }
    let value = json[head]
    const includable = this.includables.get(`${String(json.object)}.${head}`)
    if (value === undefined && includable) value = includable(json)
    if (value === undefined)
      throw invalidRequest(`This property cannot be expanded (${head}).`, { param: 'expand' })
    if (typeof value === 'string') {
      const found = this.store.find(value)
      if (!found) throw invalidRequest(`This property cannot be expanded (${head}).`, { param: 'expand' })
      value = structuredClone(found)
    } else if (Array.isArray(value)) {
      value = value.map((item) => {
        const found = typeof item === 'string' ? this.store.find(item) : undefined
        return found ? structuredClone(found) : item
      })
    } else if (typeof value === 'number' || typeof value === 'boolean') {
      throw invalidRequest(`This property cannot be expanded (${head}).`, { param: 'expand' })
    }
    json[head] = value
    this.expandPath(value, rest, full)
  }

  /**
   * A list page, newest first, with Stripe's cursor semantics: `starting_after` continues after an
   * id, `ending_before` gives the page just before one.
   */
  list<T extends { id: string }>(
    items: T[],
    params: Params,
    url: string,
    expand: string[] = [],
  ): ListPage<Json> {
    const limit = params.int('limit') ?? 10
    if (limit < 1 || limit > 100) {
      throw invalidRequest('This value must be greater than or equal to 1 and less than or equal to 100.', {
        param: 'limit',
      })
    }
    const startingAfter = params.str('starting_after')
    const endingBefore = params.str('ending_before')
    let page: T[]
    let hasMore: boolean
    if (endingBefore) {
      const index = items.findIndex((item) => item.id === endingBefore)
      if (index === -1) throw invalidRequest(`No such object: '${endingBefore}'`, { param: 'ending_before' })
      const before = items.slice(0, index)
      page = before.slice(Math.max(0, before.length - limit))
      hasMore = before.length > limit
    } else {
      let start = 0
      if (startingAfter) {
        const index = items.findIndex((item) => item.id === startingAfter)
        if (index === -1)
          throw invalidRequest(`No such object: '${startingAfter}'`, { param: 'starting_after' })
        start = index + 1
      }
      page = items.slice(start, start + limit)
      hasMore = start + limit < items.length
    }
    const itemExpand = expand.filter((path) => path.startsWith('data.')).map((path) => path.slice(5))
    return {
      object: 'list',
      data: page.map((item) => this.render(item, itemExpand)),
      has_more: hasMore,
      url,
    }
  }
}

/** Stripe's `created` filter: a number, or `created[gt|gte|lt|lte]`. */
export function createdFilter(params: Params): (created: number) => boolean {
  if (!params.has('created')) return () => true
  const exact = params.raw.created
  if (typeof exact === 'string') {
    const at = params.int('created')
    return (created) => created === at
  }
  const range = params.obj('created')
  const gt = range?.int('gt')
  const gte = range?.int('gte')
  const lt = range?.int('lt')
  const lte = range?.int('lte')
  return (created) =>
    (gt === undefined || created > gt) &&
    (gte === undefined || created >= gte) &&
    (lt === undefined || created < lt) &&
    (lte === undefined || created <= lte)
}
