/**
 * The most common passwords (about 49,000, lower case, from zxcvbn-ts's maintained common list;
 * docs/decisions/013-common-passwords.md). The list is read once, on the first check, and only on the
 * server: the web app never imports this module.
 */
let list: Promise<Set<string>> | undefined

function commonPasswords(): Promise<Set<string>> {
  list ??= import('@zxcvbn-ts/language-common').then(
    ({ dictionary }) => new Set(dictionary['passwords-common'] as string[]),
  )
  return list
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

/**
 * The forms of a password that are compared with the list: lower-cased, without the digits and
 * symbols people add at either end to pass a composition rule ("Password1!"), and with look-alike
 * characters read as letters ("P@$$w0rd").
 */
function passwordForms(password: string): string[] {
  const lower = password.toLowerCase()
  const core = lower.replace(EDGES, '')
  const forms = new Set([lower, core])
  for (const form of [lower, core]) {
    const plain = form.replace(/[@4$5037!1]/g, (c) => LOOK_ALIKES[c] ?? c)
    forms.add(plain)
    forms.add(plain.replace(EDGES, ''))
    forms.add(form.replace(/[@4$5037!1]/g, (c) => (c === '1' ? 'l' : (LOOK_ALIKES[c] ?? c))))
  }
  forms.delete('')
  return [...forms]
}

export async function isCommonPassword(password: string): Promise<boolean> {
  const common = await commonPasswords()
  return passwordForms(password).some((form) => common.has(form))
}
