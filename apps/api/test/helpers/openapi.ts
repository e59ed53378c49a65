import type { FastifyInstance } from 'fastify'

/** Every API operation as the OpenAPI document describes it, so route-wide tests cover new routes too. */

export interface JsonSchema {
  type?: string | string[]
  enum?: unknown[]
  const?: unknown
  properties?: Record<string, JsonSchema>
  items?: JsonSchema
  anyOf?: JsonSchema[]
  oneOf?: JsonSchema[]
  allOf?: JsonSchema[]
}

export interface Operation {
  method: string
  /** The OpenAPI path, with {name} placeholders. */
  path: string
  /** "METHOD /path" */
  key: string
  secured: boolean
  pathParams: Record<string, JsonSchema>
  query: Record<string, JsonSchema>
  body: JsonSchema | undefined
}

interface OpenApiOperation {
  security?: unknown[]
  parameters?: { in: string; name: string; schema: JsonSchema }[]
  requestBody?: { content?: Record<string, { schema: JsonSchema }> }
}

export function apiOperations(app: FastifyInstance): Operation[] {
  const document = app.swagger() as { paths: Record<string, Record<string, OpenApiOperation>> }
  const operations: Operation[] = []
  for (const [path, methods] of Object.entries(document.paths)) {
    if (!path.startsWith('/discord/api/')) continue
    for (const [method, operation] of Object.entries(methods)) {
      const parameters = operation.parameters ?? []
      const pick = (where: string) =>
        Object.fromEntries(parameters.filter((p) => p.in === where).map((p) => [p.name, p.schema]))
      operations.push({
        method: method.toUpperCase(),
        path,
        key: `${method.toUpperCase()} ${path}`,
        secured: Boolean(operation.security?.length),
        pathParams: pick('path'),
        query: pick('query'),
        body: operation.requestBody?.content?.['application/json']?.schema,
      })
    }
  }
  return operations
}

/** A string field of a request: its path inside the body ("features.0") and whether it is free text. */
export interface StringField {
  path: (string | number)[]
  /** False for enums and constants, which refuse anything but their values anyway. */
  freeText: boolean
}

function variants(schema: JsonSchema): JsonSchema[] {
  return [schema, ...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]
}

function isString(schema: JsonSchema): boolean {
  return variants(schema).some(
    (s) =>
      s.type === 'string' ||
      (Array.isArray(s.type) && s.type.includes('string')) ||
      typeof s.const === 'string' ||
      (s.enum ?? []).some((value) => typeof value === 'string'),
  )
}

function isFreeText(schema: JsonSchema): boolean {
  return variants(schema).some(
    (s) =>
      (s.type === 'string' || (Array.isArray(s.type) && s.type.includes('string'))) &&
      !s.enum &&
      s.const === undefined,
  )
}

/** The string fields of a JSON schema, walking objects and arrays (an array's first item stands for all). */
export function stringFields(schema: JsonSchema, at: (string | number)[] = []): StringField[] {
  if (isString(schema)) return [{ path: at, freeText: isFreeText(schema) }]
  const fields: StringField[] = []
  for (const s of variants(schema)) {
    for (const [name, property] of Object.entries(s.properties ?? {}))
      fields.push(...stringFields(property, [...at, name]))
    if (s.items) fields.push(...stringFields(s.items, [...at, 0]))
  }
  return fields
}
