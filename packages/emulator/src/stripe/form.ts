import { invalidRequest, missingParam, unknownParam } from './errors'

/**
 * Stripe's form encoding: `a[b][c]=1`, `items[0][price]=x`, `expand[]=y` (Stripe.js) and `expand[0]=y`
 * (the SDK). Parsed into nested plain objects; objects whose keys are all indexes become arrays.
 */

export type FormValue = string | FormObject | FormValue[]
export interface FormObject {
  [key: string]: FormValue
}

export function parseForm(text: string): FormObject {
  const root: FormObject = {}
  for (const pair of text.split('&')) {
    if (!pair) continue
    const eq = pair.indexOf('=')
    const rawKey = eq === -1 ? pair : pair.slice(0, eq)
    const rawValue = eq === -1 ? '' : pair.slice(eq + 1)
    const key = decodeURIComponent(rawKey.replaceAll('+', ' '))
    const value = decodeURIComponent(rawValue.replaceAll('+', ' '))
    const bracket = key.indexOf('[')
    const path = bracket === -1 ? [key] : [key.slice(0, bracket), ...parseSegments(key.slice(bracket))]
    assign(root, path, value)
  }
  return normalise(root, '') as FormObject
}

export function parseQuery(params: URLSearchParams): FormObject {
  return parseForm(params.toString())
}

function parseSegments(rest: string): string[] {
  const segments: string[] = []
  for (const match of rest.matchAll(/\[([^\]]*)\]/g)) segments.push(match[1] ?? '')
  return segments
}

function assign(root: FormObject, path: string[], value: string): void {
  let node = root
  path.forEach((segment, index) => {
    const key = segment === '' ? String(Object.keys(node).length) : segment
    if (index === path.length - 1) {
      node[key] = value
      return
    }
    const next = node[key]
    if (typeof next !== 'object' || Array.isArray(next)) node[key] = {}
    node = node[key] as FormObject
  })
}

function normalise(value: FormValue, key: string): FormValue {
  if (typeof value === 'string' || Array.isArray(value)) return value
  const keys = Object.keys(value)
  const entries = keys.map((k) => [k, normalise(value[k] as FormValue, k)] as const)
  // Metadata keys are the caller's own and may well be digits; everything else indexed is an array.
  if (key !== 'metadata' && keys.length > 0 && keys.every((k) => /^\d+$/.test(k))) {
    return entries.sort((a, b) => Number(a[0]) - Number(b[0])).map(([, v]) => v)
  }
  return Object.fromEntries(entries)
}

/**
 * Typed reads over a parsed form with Stripe's validation messages. `prefix` gives nested readers
 * the full parameter name (`items[0][price]`) for error `param` fields.
 */
export class Params {
  private readonly used = new Set<string>()

  constructor(
    readonly raw: FormObject,
    private readonly prefix = '',
  ) {}

  name(key: string): string {
    return this.prefix ? `${this.prefix}[${key}]` : key
  }

  has(key: string): boolean {
    this.used.add(key)
    return this.raw[key] !== undefined
  }

  /** Rejects parameters no reader asked for, as Stripe rejects unknown parameters. */
  rejectUnknown(allowed: string[] = []): void {
    for (const key of Object.keys(this.raw)) {
      if (!this.used.has(key) && !allowed.includes(key)) throw unknownParam(this.name(key))
    }
  }

  str(key: string): string | undefined {
    this.used.add(key)
    const value = this.raw[key]
    if (value === undefined) return undefined
    if (typeof value !== 'string')
      throw invalidRequest(`Invalid string: ${this.name(key)}`, { param: this.name(key) })
    return value
  }

  requireStr(key: string): string {
    const value = this.str(key)
    if (value === undefined || value === '') throw missingParam(this.name(key))
    return value
  }

  /** Empty string means "unset" in Stripe's form encoding. */
  nullableStr(key: string): string | null | undefined {
    const value = this.str(key)
    if (value === undefined) return undefined
    return value === '' ? null : value
  }

  int(key: string): number | undefined {
    const value = this.str(key)
    if (value === undefined || value === '') return undefined
    if (!/^-?\d+$/.test(value)) {
      throw invalidRequest(`Invalid integer: ${value}`, {
        param: this.name(key),
        code: 'parameter_invalid_integer',
      })
    }
    return Number(value)
  }

  requireInt(key: string): number {
    const value = this.int(key)
    if (value === undefined) throw missingParam(this.name(key))
    return value
  }

  bool(key: string): boolean | undefined {
    const value = this.str(key)
    if (value === undefined || value === '') return undefined
    if (value !== 'true' && value !== 'false') {
      throw invalidRequest(`Invalid boolean: ${value}`, { param: this.name(key) })
    }
    return value === 'true'
  }

  oneOf<T extends string>(key: string, values: readonly T[]): T | undefined {
    const value = this.str(key)
    if (value === undefined || value === '') return undefined
    if (!(values as readonly string[]).includes(value)) {
      throw invalidRequest(`Invalid ${this.name(key)}: must be one of ${values.join(', ')}`, {
        param: this.name(key),
        code: 'parameter_invalid_string',
      })
    }
    return value as T
  }

  obj(key: string): Params | undefined {
    this.used.add(key)
    const value = this.raw[key]
    if (value === undefined || value === '') return undefined
    if (typeof value !== 'object' || Array.isArray(value)) {
      throw invalidRequest(`Invalid object: ${this.name(key)}`, { param: this.name(key) })
    }
    return new Params(value, this.name(key))
  }

  /** Arrays of hashes (`items[0][price]`). */
  objList(key: string): Params[] | undefined {
    this.used.add(key)
    const value = this.raw[key]
    if (value === undefined || value === '') return undefined
    const list = Array.isArray(value) ? value : [value]
    return list.map((item, index) => {
      if (typeof item !== 'object' || Array.isArray(item)) {
        throw invalidRequest(`Invalid array: ${this.name(key)}`, { param: this.name(key) })
      }
      return new Params(item, `${this.name(key)}[${index}]`)
    })
  }

  strList(key: string): string[] | undefined {
    this.used.add(key)
    const value = this.raw[key]
    if (value === undefined || value === '') return undefined
    const list = Array.isArray(value) ? value : [value]
    return list.map((item) => {
      if (typeof item !== 'string')
        throw invalidRequest(`Invalid array: ${this.name(key)}`, { param: this.name(key) })
      return item
    })
  }

  /** Metadata, merged into `current` the way Stripe merges it: an empty value deletes the key. */
  metadata(current: Record<string, string> = {}): Record<string, string> | undefined {
    this.used.add('metadata')
    const value = this.raw.metadata
    if (value === undefined) return undefined
    if (value === '') return {}
    if (typeof value !== 'object' || Array.isArray(value)) {
      throw invalidRequest('Invalid object: metadata', { param: this.name('metadata') })
    }
    const next = { ...current }
    for (const [k, v] of Object.entries(value)) {
      if (typeof v !== 'string')
        throw invalidRequest(`Invalid metadata value for ${k}`, { param: `metadata[${k}]` })
      if (v === '') delete next[k]
      else next[k] = v
    }
    return next
  }
}
