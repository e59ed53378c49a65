import { z } from 'zod'

export const textMessages = {
  controlCharacter: 'This text contains a control character (such as NUL) that is not allowed',
} as const

/**
 * Nothing a person types in a one-line field is a C0 control character or DEL: NUL cannot even be
 * stored in a PostgreSQL text column, and the others only hide what a value really says.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what this refuses
const SINGLE_LINE = /^[^\u0000-\u001f\u007f]*$/
/** Multi-line fields (messages, descriptions) keep tab, line feed and carriage return. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what this refuses
const MULTI_LINE = /^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]*$/

/**
 * The start of every string a request may carry (bodies, query strings, path parameters): a string
 * without control characters. Chain the field's own rules after it; `error` is the message for a
 * missing or non-string value.
 */
export function text(options: { multiline?: boolean; error?: string } = {}) {
  const base = options.error === undefined ? z.string() : z.string({ error: options.error })
  return base.regex(options.multiline ? MULTI_LINE : SINGLE_LINE, textMessages.controlCharacter)
}
