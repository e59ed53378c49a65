import { hash, verify } from '@node-rs/argon2'

/** OWASP's argon2id baseline: 19 MiB of memory, 2 iterations, 1 lane. */
// `algorithm: 2` is Algorithm.Argon2id (a const enum the isolated-module build cannot import).
export interface Argon2Params {
  algorithm: 2
  memoryCost: number
  timeCost: number
  parallelism: number
}
const ARGON2_PARAMS: Argon2Params = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 }

export function hashPassword(password: string, params: Argon2Params = ARGON2_PARAMS): Promise<string> {
  return hash(password, params)
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password)
  } catch {
    return false
  }
}

/** True when the stored hash was made with other parameters than today's, so it is redone at login. */
export function needsRehash(passwordHash: string, params: Argon2Params = ARGON2_PARAMS): boolean {
  const match = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$/.exec(passwordHash)
  if (!match) return true
  return (
    Number(match[1]) !== params.memoryCost ||
    Number(match[2]) !== params.timeCost ||
    Number(match[3]) !== params.parallelism
  )
}

/** Verified against when an email is unknown, so both answers take the same time. */
let dummyHash: Promise<string> | undefined
export function timingDummyHash(): Promise<string> {
  dummyHash ??= hashPassword('timing-equalizer-not-a-password')
  return dummyHash
}
