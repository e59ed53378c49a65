// Only zod's types: public pages load this file (through the API client) and must not load a validation library.
import type { z } from 'zod'

/** What a check found wrong, where (field names and indexes, from the answer's data down). */
export interface ContractIssue {
  readonly path: readonly PropertyKey[]
  readonly message: string
}

/** The API answered a shape this build was not made for: a bug on one side, not a refusal. */
export class ContractDriftError extends Error {
  constructor(
    readonly request: string,
    readonly issues: readonly ContractIssue[],
  ) {
    super(`API contract drift: ${request} answered data its schema rejects: ${describeIssues(issues)}`)
    this.name = 'ContractDriftError'
  }
}

function describeIssues(issues: readonly ContractIssue[]): string {
  return issues.map((issue) => `${issue.path.map(String).join('.') || '(data)'}: ${issue.message}`).join('; ')
}

/**
 * Checks an answer's data against the shared schema the screen was built for, so that contract
 * drift fails a test instead of a screen:
 * - a match comes back as the schema's output; fields the schema does not name are dropped, so an
 *   API that adds a field is not drift;
 * - a mismatch is always reported with console.error, naming the request and every zod issue; the
 *   end-to-end suite runs the production build and fails any test that logs one;
 * - outside a production build (`import.meta.env.PROD` false: `npm run dev`, Vitest) it then throws
 *   ContractDriftError, which apiRequest passes on instead of turning it into a failed call, so the
 *   work stops where the mismatch happened;
 * - in a production build the data is handed on as received: a changed field the screen may not
 *   even read, or an API deploy lagging behind the web's, must not take the page away from a
 *   member; the screen fares as it did before answers were checked.
 */
export function checkContract<T>(request: string, schema: z.ZodType<T>, data: unknown): T {
  const parsed = schema.safeParse(data)
  if (parsed.success) return parsed.data
  const drift = new ContractDriftError(request, parsed.error.issues)
  console.error(drift.message)
  if (!import.meta.env.PROD) throw drift
  return data as T
}
