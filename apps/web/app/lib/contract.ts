// Only zod's types: this file is on the dashboard's first load, which must not wait for zod.
import type { z } from 'zod'
import type * as Contracts from './contracts'

/**
 * What an API answer is checked with (lib/api-client.ts, checkAnswer): a schema at hand, or one of the
 * member screens' schemas by name, loaded with zod from lib/contracts.ts on first use. The member
 * screens name theirs, so that zod and the schemas (~30 KiB compressed) stay out of the dashboard's
 * first load on a phone (docs/decisions/016-frontend-performance.md); the admin console, whose forms
 * load zod anyway, passes its schemas.
 */
export type Contract<T> = z.ZodType<T> | NamedContract<T>

export interface NamedContract<T> {
  readonly contract: ContractName
  load(): Promise<z.ZodType<T>>
}

export type ContractName = keyof typeof Contracts

let table: Promise<typeof Contracts> | undefined

/** The named schema of lib/contracts.ts, loaded (with zod) when an answer is first checked with it. */
export function contract<K extends ContractName>(name: K): NamedContract<z.output<(typeof Contracts)[K]>> {
  return {
    contract: name,
    load() {
      table ??= import('./contracts').catch((error: unknown) => {
        table = undefined
        throw error
      })
      return table.then((schemas) => schemas[name] as unknown as z.ZodType<z.output<(typeof Contracts)[K]>>)
    },
  }
}

export function isNamed<T>(contract: Contract<T>): contract is NamedContract<T> {
  return 'contract' in contract && typeof (contract as NamedContract<T>).load === 'function'
}
