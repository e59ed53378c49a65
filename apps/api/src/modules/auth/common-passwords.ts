import type { ZxcvbnFactory } from '@zxcvbn-ts/core'

/**
 * Common passwords, also dressed up to pass a composition rule (docs/decisions/013-common-passwords.md).
 * The list is zxcvbn-ts's maintained `passwords-common` (about 49,000, lower case); zxcvbn-ts's matcher
 * finds a list word inside a password however its case and look-alike characters (l33t) were changed.
 * Both are loaded once, on the first check, and only on the server: the web app never imports this module.
 */
interface Judge {
  list: Set<string>
  /** The longest word of the list: longer text cannot be one of them (and is not read by zxcvbn-ts). */
  longest: number
  zxcvbn: ZxcvbnFactory
}
let judge: Promise<Judge> | undefined

function loadJudge(): Promise<Judge> {
  judge ??= Promise.all([import('@zxcvbn-ts/core'), import('@zxcvbn-ts/language-common')]).then(
    ([core, common]) => {
      const passwords = common.dictionary['passwords-common'] as string[]
      return {
        list: new Set(passwords),
        longest: Math.max(...passwords.map((word) => word.length)),
        // Only the common-password list: a match means "a common password", which is what the
        // message says; other weaknesses are the composition rule's business.
        zxcvbn: new core.ZxcvbnFactory({
          dictionary: { 'passwords-common': passwords },
          graphs: common.adjacencyGraphs,
        }),
      }
    },
  )
  return judge
}

/** Look-alike characters people put in place of letters. */
const LOOK_ALIKES: Record<string, string> = {
  '@': 'a',
  '4': 'a',
  $: 's',
  '5': 's',
  '0': 'o',
  '3': 'e',
  '7': 't',
  '1': 'i',
  '!': 'i',
}
const EDGES = /^[^a-z]+|[^a-z]+$/g
const SYMBOL_EDGES = /^[^a-z0-9]+|[^a-z0-9]+$/g

/**
 * The forms of a password that are compared with the list: lower-cased; without the digits and
 * symbols people add at either end to pass a composition rule ("Password1!"), or without only the
 * symbols ("Abcd1234!" is "abcd1234"); and with look-alike characters read as letters ("P@$$w0rd").
 */
function passwordForms(password: string): string[] {
  const lower = password.toLowerCase()
  const core = lower.replace(EDGES, '')
  const forms = new Set([lower, core, lower.replace(SYMBOL_EDGES, '')])
  for (const form of [lower, core]) {
    const plain = form.replace(/[@4$5037!1]/g, (c) => LOOK_ALIKES[c] ?? c)
    forms.add(plain)
    forms.add(plain.replace(EDGES, ''))
    forms.add(form.replace(/[@4$5037!1]/g, (c) => (c === '1' ? 'l' : (LOOK_ALIKES[c] ?? c))))
  }
  forms.delete('')
  return [...forms]
}

/**
 * What may be added around a common password and still leave it common: a capital or other single
 * letter, a short number (a year) and a few symbols, at either end ("A1q2w3e4r!", "Summer2024!").
 */
function isDecoration(added: string): boolean {
  const letters = added.match(/\p{L}/gu)?.length ?? 0
  const digits = added.match(/\d/g)?.length ?? 0
  const others = added.length - letters - digits
  return letters <= 1 && digits <= 4 && others <= 3
}

/** The shortest list word that counts when found inside a longer password. */
const MIN_WORD = 4
/** The most characters of decoration looked for at either end. */
const MAX_EDGE = 8

/** The password without each decoration it could be wearing: every middle left by trimming its ends. */
function undressed(password: string): string[] {
  const middles = new Set<string>()
  for (let start = 0; start <= Math.min(MAX_EDGE, password.length); start++)
    for (let end = password.length; end >= Math.max(start + MIN_WORD, password.length - MAX_EDGE); end--)
      if (isDecoration(password.slice(0, start) + password.slice(end)))
        middles.add(password.slice(start, end))
  return [...middles]
}

/** zxcvbn-ts reads all of `text` as one word of the common list (any case, look-alikes, reversed). */
function isOneListWord(zxcvbn: ZxcvbnFactory, text: string): boolean {
  const { sequence } = zxcvbn.check(text)
  return sequence.length === 1 && isListWord(sequence[0]!)
}

const isListWord = (part: { pattern: string; dictionaryName?: string }) =>
  part.pattern === 'dictionary' && part.dictionaryName === 'passwords-common'

export async function isCommonPassword(password: string): Promise<boolean> {
  const { list, longest, zxcvbn } = await loadJudge()
  if (passwordForms(password).some((form) => list.has(form))) return true
  // Longer than any list word and its decoration: not a dressed-up common password (and zxcvbn-ts,
  // which takes a while over long text, is not asked).
  if (password.length > longest + 2 * MAX_EDGE) return false
  // A list word with nothing around it but decoration ("A1q2w3e4r!" is "1q2w3e4r") is a common
  // password dressed up. Plain words are looked up at once; zxcvbn-ts reads the ones with look-alikes.
  const middles = undressed(password).filter((middle) => middle.length <= longest)
  if (middles.some((middle) => list.has(middle.toLowerCase()))) return true
  // zxcvbn-ts's reading of the whole password: a list word and one decorated end ("Summer2024!").
  const { sequence } = zxcvbn.check(password)
  if (
    sequence.some(
      (part) =>
        isListWord(part) &&
        part.token.length >= MIN_WORD &&
        isDecoration(password.slice(0, part.i) + password.slice(part.j + 1)),
    )
  )
    return true
  // Decorated at both ends and disguised ("!P4ssw0rd!"): each middle with look-alikes, read alone.
  return middles.some((middle) => /[^a-z]/i.test(middle) && isOneListWord(zxcvbn, middle))
}
