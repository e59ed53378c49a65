import { expect } from 'vitest'

/**
 * Checks an answer against a Bot API type from @grammyjs/types at run time: every key the type
 * requires is there and no key the type does not know. The key lists are typed from the type itself,
 * so tsc fails the test file when they leave out a required key or name one the Bot API lacks.
 */

type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T]
type OptionalKeys<T> = Exclude<keyof T, RequiredKeys<T>>

export function expectShape<T>(
  value: unknown,
  required: Record<RequiredKeys<T>, true>,
  optional: Partial<Record<OptionalKeys<T>, true>> = {},
): asserts value is T {
  expect(value, 'a Bot API object').toBeTypeOf('object')
  expect(value).not.toBeNull()
  const keys = Object.keys(value as object)
  const known = new Set([...Object.keys(required), ...Object.keys(optional)])
  expect(keys, 'keys the type requires').toEqual(expect.arrayContaining(Object.keys(required)))
  expect(
    keys.filter((key) => !known.has(key)),
    'keys the type does not declare (or the test does not expect)',
  ).toEqual([])
}

export const USER_KEYS = { id: true, is_bot: true, first_name: true } as const
