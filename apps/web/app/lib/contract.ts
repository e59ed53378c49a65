// Only zod's types: this file is on the dashboard's first load, which must not wait for zod.
import type { z } from 'zod'
import { afterFirstScreen } from './after-first-screen'
import type { ContractCheckAnswer, ContractCheckRequest } from './contract-answers'
import { ContractDriftError, checkContract } from './contract-check'
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
   * received at once and, once the first screen is up (afterFirstScreen), has a worker check it, so
   * that zod never runs on the page's main thread and a member's screen never waits for it. The API
   * serializes every answer with the same schema, so the data is what the check would return; a
   * drift is logged all the same.
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

/** The worker that checks a production build's answers, started with the first check. */
let checker: Worker | undefined
const checking = new Map<number, string>()
let nextCheck = 0

/**
 * Sends an answer to the checking worker (lib/contract-worker.ts, which checks with
 * lib/contract-answers.ts), which loads zod and the schemas on its own thread; a drift it finds is
 * logged here, on the page, like checkContract's.
 */
function checkInWorker(request: string, name: ContractName, data: unknown): void {
  if (!checker) {
    checker = new Worker(new URL('./contract-worker.ts', import.meta.url), {
      type: 'module',
      name: 'contract-check',
    })
    checker.addEventListener('message', ({ data: answer }: MessageEvent<ContractCheckAnswer>) => {
      const checked = checking.get(answer.id)
      checking.delete(answer.id)
      if (checked !== undefined && answer.issues.length > 0)
        console.error(new ContractDriftError(checked, answer.issues).message)
    })
    // A worker that could not load (offline, a browser without module workers) has nothing to report.
    checker.addEventListener('error', () => checking.clear())
  }
  const id = nextCheck++
  checking.set(id, request)
  try {
    checker.postMessage({ id, contract: name, data } satisfies ContractCheckRequest)
  } catch {
    checking.delete(id)
  }
}

/** The named schema of lib/contracts.ts, loaded (with zod) when an answer is first checked with it. */
export function contract<K extends ContractName>(name: K): NamedContract<z.output<(typeof Contracts)[K]>> {
  return {
    contract: name,
    check(request, data) {
      if (!import.meta.env.PROD) return load(name).then((schema) => checkContract(request, schema, data))
      afterFirstScreen(() => checkInWorker(request, name, data))
      return Promise.resolve(data as z.output<(typeof Contracts)[K]>)
    },
  }
}
