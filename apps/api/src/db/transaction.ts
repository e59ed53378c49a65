import { AsyncLocalStorage } from 'node:async_hooks'
import type { Kysely, Transaction } from 'kysely'
import type { DB } from './types'

export type CommitHook = (trx: Transaction<DB>) => Promise<void>

/** Hooks waiting for the next transaction that commits in the current async scope (one request). */
const pending = new AsyncLocalStorage<{ hooks: CommitHook[] }>()

/** Runs `fn` in a scope of its own: hooks registered inside it join its next committing transaction. */
export function withCommitScope<T>(fn: () => T): T {
  return pending.run({ hooks: [] }, fn)
}

/**
 * Registers a write that must commit with the next transaction of this scope, or not at all (e.g. the
 * audit row of the admin action the transaction makes). False outside a scope.
 */
export function onNextCommit(hook: CommitHook): boolean {
  const scope = pending.getStore()
  if (!scope) return false
  scope.hooks.push(hook)
  return true
}

/** Withdraws a hook that no transaction took (the caller writes it some other way). */
export function takeBackCommitHook(hook: CommitHook): boolean {
  const scope = pending.getStore()
  const index = scope?.hooks.indexOf(hook) ?? -1
  if (index < 0) return false
  scope?.hooks.splice(index, 1)
  return true
}

/**
 * The one way the app opens a transaction: `work`, then the scope's pending hooks, inside it. A
 * transaction that fails leaves the hooks pending for the caller to handle.
 */
export function transactionRunner(db: Kysely<DB>) {
  return <T>(work: (trx: Transaction<DB>) => Promise<T>): Promise<T> =>
    db.transaction().execute(async (trx) => {
      const result = await work(trx)
      const scope = pending.getStore()
      if (scope) for (let hook = scope.hooks.shift(); hook; hook = scope.hooks.shift()) await hook(trx)
      return result
    })
}
export type TransactionRunner = ReturnType<typeof transactionRunner>
