import type { FieldError } from '@edgeclub/shared'
import type { z } from 'zod'

/** The first message per field, from a zod result or the server's `errors` list. */
export function fieldErrors(
  issues: readonly { path: readonly PropertyKey[]; message: string }[],
): Record<string, string> {
  const errors: Record<string, string> = {}
  for (const issue of issues) {
    const field = String(issue.path[0] ?? '')
    if (field && !errors[field]) errors[field] = issue.message
  }
  return errors
}

export function serverFieldErrors(errors: FieldError[] | undefined): Record<string, string> {
  return fieldErrors((errors ?? []).map((error) => ({ path: [error.field], message: error.message })))
}

export function zodFieldErrors(error: z.ZodError): Record<string, string> {
  return fieldErrors(error.issues)
}
