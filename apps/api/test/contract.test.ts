import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from './helpers/test-app'

/**
 * Every response has one schema, shared with the browser: the server serializes through it (a field
 * it does not declare never leaves) and the OpenAPI document shows it.
 */
describe('response contracts', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp()
  })
  afterAll(() => t.close())

  it('every API and health route declares the schema of its successful answer', async () => {
    const spec = t.app.swagger() as {
      paths: Record<string, Record<string, { responses?: Record<string, { content?: unknown }> }>>
    }
    const missing: string[] = []
    let operations = 0
    for (const [path, methods] of Object.entries(spec.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        operations += 1
        const success = Object.entries(operation.responses ?? {}).filter(([status]) => status.startsWith('2'))
        if (success.length === 0 || success.some(([, response]) => !response.content))
          missing.push(`${method.toUpperCase()} ${path}`)
      }
    }
    expect(operations).toBeGreaterThan(50)
    expect(missing).toEqual([])
  })
})
