// Only zod's types: this file is on the dashboard's first load, which must not wait for zod.
import type { z } from 'zod'
import { afterFirstScreen } from './after-first-screen'
import { checkContract } from './contract-check'
import type * as Contracts from './contracts'

/**
 * What an API answer is checked with (lib/api-client.ts, checkAnswer): a schema at hand, or one of the
 * member screens' schemas by name, loaded with zod from lib/contracts.ts on first use. The member
 * screens name theirs, so that zod and the schemas (~30 KiB compressed) stay out of the dashboard's
 * first load on a phone (docs/decisions/016-public-page-weight.md); the admin console, whose forms
 * load zod anyway, passes its schemas.
 */
export type Contract<T> = z.ZodType<T> | NamedContract<T>

export interface NamedContract<T> {
  readonly contract: ContractName
  /**
   * checkContract with the named schema, loaded first. A development or test build waits for it and
   * checks as checkContract does (a drift throws); a production build hands the screen the data as
   * received at once and checks it once the first screen is up (afterFirstScreen), so that a member's
   * first screen never waits for zod. The API serializes every answer with the same schema, so the
   * data is what the check would return; a drift is logged all the same.
   */
  check(request: string, data: unknown): Promise<T>
}

export type ContractName = keyof typeof Contracts

let table: Promise<typeof Contracts> | undefined

function load<K extends ContractName>(name: K): Promise<z.ZodType<z.output<(typeof Contracts)[K]>>> {
  table ??= import('./contracts').catch((error: unknown) => {
    table = undefined
    throw error
  })
  return table.then((schemas) => schemas[name] as unknown as z.ZodType<z.output<(typeof Contracts)[K]>>)
}

/** The named schema of lib/contracts.ts, loaded (with zod) when an answer is first checked with it. */
export function contract<K extends ContractName>(name: K): NamedContract<z.output<(typeof Contracts)[K]>> {
  return {
    contract: name,
    check(request, data) {
      const check = () => load(name).then((schema) => checkContract(request, schema, data))
      if (!import.meta.env.PROD) return check()
      afterFirstScreen(() => {
        // A check that could not load (offline) has nothing to report; checkContract itself never throws here.
        check().catch(() => undefined)
      })
      return Promise.resolve(data as z.output<(typeof Contracts)[K]>)
    },
  }
}
