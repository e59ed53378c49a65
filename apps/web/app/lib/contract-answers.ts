import * as Contracts from './contracts'

/**
 * What the checking worker (lib/contract-worker.ts) does with each answer it is sent: a production
 * build's check of an API answer against its named schema (lib/contract.ts), off the page's main
 * thread. Building zod's schemas alone took ~110 ms of a phone's main thread, as one task, on every
 * dashboard load, for a check that only ever writes to the console; the page reports what comes back.
 */

export interface ContractCheckRequest {
  id: number
  contract: keyof typeof Contracts
  data: unknown
}

export interface ContractCheckAnswer {
  id: number
  /** Empty when the data matches its schema. */
  issues: { path: string[]; message: string }[]
}

export function answerCheck({ id, contract, data }: ContractCheckRequest): ContractCheckAnswer {
  // biome-ignore lint/performance/noDynamicNamespaceImportAccess: the worker checks with any of the schemas, by name.
  const parsed = Contracts[contract].safeParse(data)
  return {
    id,
    issues: parsed.success
      ? []
      : parsed.error.issues.map((issue) => ({ path: issue.path.map(String), message: issue.message })),
  }
}
