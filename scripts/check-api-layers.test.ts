import { execFile } from 'node:child_process'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { accessWrites, findLayerProblems } from './check-api-layers'

const root = path.resolve(import.meta.dirname, '..')
const run = promisify(execFile)
let src: string

async function write(file: string, text: string) {
  await fs.mkdir(path.dirname(path.join(src, file)), { recursive: true })
  await fs.writeFile(path.join(src, file), text)
}

beforeEach(async () => {
  src = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'api-layers-')), 'src')
  await write(
    'modules/subscriptions/subscriptions-repository.ts',
    "export const end = (db) => db.updateTable('subscriptions').set({ status: 'expired' })\n",
  )
  await write('modules/plans/plans-repository.ts', 'export const plans = []\n')
  await write(
    'modules/plans/plans-service.ts',
    "import { plans } from './plans-repository'\nexport { plans }\n",
  )
  await write(
    'queue/job-runner.ts',
    "import type { Database } from '../db/database'\nexport type J = Database\n",
  )
  await write('db/migrations/001.ts', 'await sql`insert into subscriptions (id) values (1)`\n')
})

afterEach(async () => {
  await fs.rm(path.dirname(src), { recursive: true, force: true })
})

describe('the API layers (npm run lint)', () => {
  it('lets the subscriptions module and migrations write access, and its own module read its repository', () => {
    expect(findLayerProblems(src)).toEqual([])
  })

  it('fails a write to subscriptions or subscription_periods from another module, by Kysely or by SQL', async () => {
    await write(
      'modules/payments/refunds.ts',
      [
        "export const a = (trx) => trx.updateTable('subscriptions').set({ status: 'cancelled' })",
        "export const b = (trx) => trx.insertInto('subscription_periods').values({})",
        'export const c = sql`update subscriptions set end_date = now()`',
        "export const read = (db) => db.selectFrom('subscriptions').selectAll()",
      ].join('\n'),
    )
    expect(findLayerProblems(src).map(({ rule, file, line }) => ({ rule, file, line }))).toEqual([
      { rule: 'access-writer', file: 'modules/payments/refunds.ts', line: 1 },
      { rule: 'access-writer', file: 'modules/payments/refunds.ts', line: 2 },
      { rule: 'access-writer', file: 'modules/payments/refunds.ts', line: 3 },
    ])
  })

  it('names Kysely and SQL writes, and leaves reads and other tables alone', () => {
    expect(accessWrites("db.deleteFrom('subscription_periods as p')").map((w) => w.detail)).toEqual([
      "deleteFrom('subscription_periods')",
    ])
    expect(accessWrites('sql`DELETE FROM "subscriptions" where id = 1`').map((w) => w.detail)).toEqual([
      'DELETE FROM subscriptions',
    ])
    expect(accessWrites("db.updateTable('subscriptions_archive'); sql`update users set x = 1`")).toEqual([])
  })

  it("fails a module importing another module's repository, and the queue importing a module", async () => {
    await write(
      'modules/admin/admin-service.ts',
      "import type { PlansRepository } from '../plans/plans-repository'\nexport type P = PlansRepository\n",
    )
    await write(
      'queue/workers.ts',
      "import { plans } from '../modules/plans/plans-service'\nexport { plans }\n",
    )
    expect(findLayerProblems(src).map(({ rule, file }) => ({ rule, file }))).toEqual([
      { rule: 'private-repository', file: 'modules/admin/admin-service.ts' },
      { rule: 'queue-below-modules', file: 'queue/workers.ts' },
    ])
  })

  it('exits non-zero with file and line when run as the lint step', async () => {
    await write(
      'modules/admin/grant.ts',
      "\n\nexport const g = (trx) => trx.insertInto('subscriptions').values({})\n",
    )
    const failed = await run('npx', ['tsx', 'scripts/check-api-layers.ts', src], { cwd: root }).catch(
      (error: { code: number; stderr: string }) => error,
    )
    expect(failed).toMatchObject({ code: 1 })
    expect((failed as { stderr: string }).stderr).toContain('modules/admin/grant.ts:3 [access-writer]')
  })
})
