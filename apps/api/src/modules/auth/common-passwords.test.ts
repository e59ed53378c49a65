import { NewPasswordSchema } from '@edgeclub/shared'
import { dictionary } from '@zxcvbn-ts/language-common'
import { describe, expect, it } from 'vitest'
import { isCommonPassword } from './common-passwords'

const capitalised = (word: string) => word.replace(/[a-z]/, (letter) => letter.toUpperCase())
const withDigit = (word: string, digits: string) => (/\d/.test(word) ? word : `${word}${digits}`)

/** Ways people dress a common password up to pass "upper, lower, digit and symbol". */
const DRESSINGS: Record<string, (word: string) => string> = {
  'Capital, digit, then !': (word) => `${withDigit(capitalised(word), '1')}!`,
  'Capital, 123, then @': (word) => `${withDigit(capitalised(word), '123')}@`,
  'a year and !': (word) => `${capitalised(word)}2024!`,
  '! in front': (word) => `!${withDigit(capitalised(word), '1')}`,
  'a capital letter in front, ! behind': (word) => `A${withDigit(word, '1')}!`,
  '$ on both sides': (word) => `$${withDigit(capitalised(word), '7')}$`,
}

describe('common passwords', () => {
  const mostCommon = (dictionary['passwords-common'] as string[]).slice(0, 3000)

  it('refuses the 3,000 most common passwords dressed up to pass the composition rule', async () => {
    const accepted: string[] = []
    let tried = 0
    for (const [name, dress] of Object.entries(DRESSINGS)) {
      let passed = 0
      let ofDressing = 0
      for (const word of mostCommon) {
        const password = dress(word)
        if (!NewPasswordSchema.safeParse(password).success) continue
        ofDressing += 1
        if (!(await isCommonPassword(password))) {
          passed += 1
          accepted.push(password)
        }
      }
      tried += ofDressing
      console.info(`${name}: ${passed} of ${ofDressing} accepted`)
    }
    console.info(`all dressings: ${accepted.length} of ${tried} accepted`, accepted.slice(0, 20))
    expect(tried).toBeGreaterThan(10_000)
    expect(accepted).toEqual([])
  }, 120_000)

  it.each([
    'Abcd1234!',
    'Qwer1234!',
    'A1q2w3e4r!',
    'P@$$w0rd',
    'Password1!',
    'Qwerty123!',
    'Summer2024!',
    '!Dragon2024',
    'Iloveyou1!',
    'drowssaP1!',
    'X$h4d0w9!',
  ])('refuses %s', async (password) => {
    expect(await isCommonPassword(password)).toBe(true)
  })

  it.each([
    'Brand$New1pass',
    'Fresh$tart22',
    'Keeper$ecret9',
    'Ops$ecret123',
    'Tr0ub4dor&3',
    'Edge$Club2026',
    'Zx9!qT4w',
    'Kq3$vbnm',
    'Winning$tr3ak',
    'correct-Horse7-battery$',
  ])('accepts %s (not a common password, dressed or not)', async (password) => {
    expect(await isCommonPassword(password)).toBe(false)
  })
})
