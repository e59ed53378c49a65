import { execFile } from 'node:child_process'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { findCrossFeatureImports, importSpecifiers } from './check-feature-imports'

const root = path.resolve(import.meta.dirname, '..')
const run = promisify(execFile)
let features: string

async function write(file: string, text: string) {
  await fs.mkdir(path.dirname(path.join(features, file)), { recursive: true })
  await fs.writeFile(path.join(features, file), text)
}

beforeEach(async () => {
  features = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'feature-imports-')), 'features')
  await write('billing/billing-api.ts', 'export const invoices = []\n')
  await write(
    'billing/invoice-list.tsx',
    "import { invoices } from './billing-api'\nexport const list = invoices\n",
  )
})

afterEach(async () => {
  await fs.rm(path.dirname(features), { recursive: true, force: true })
})

describe('the feature import rule (npm run lint)', () => {
  it('passes features that import themselves, lib, components and packages', async () => {
    await write(
      'team/team-tab.tsx',
      [
        "import { paths } from '@edgeclub/shared'",
        "import { Button } from '../../components/ui/button'",
        "import { apiRequest } from '../../lib/api-client'",
        "import { roster } from './team-api'",
        "import { other } from '../team/team-api'",
      ].join('\n'),
    )
    expect(findCrossFeatureImports(features)).toEqual([])
  })

  it('reports every form of import that reaches into another feature, with file and line', async () => {
    await write(
      'team/team-tab.tsx',
      [
        "import { list } from '../billing/invoice-list'",
        "import type { Invoice } from '../billing/billing-api'",
        'import {',
        '  invoices,',
        "} from '../billing/billing-api'",
        "export { invoices as all } from '../billing/billing-api'",
        "import '../billing/styles.css'",
        "const lazy = () => import('../billing/invoice-list')",
      ].join('\n'),
    )
    await write('team/nested/row.tsx', "import { list } from '../../billing/invoice-list'\n")
    expect(findCrossFeatureImports(features)).toEqual([
      {
        file: path.join('team', 'nested', 'row.tsx'),
        line: 1,
        specifier: '../../billing/invoice-list',
        target: 'billing',
      },
      {
        file: path.join('team', 'team-tab.tsx'),
        line: 1,
        specifier: '../billing/invoice-list',
        target: 'billing',
      },
      {
        file: path.join('team', 'team-tab.tsx'),
        line: 2,
        specifier: '../billing/billing-api',
        target: 'billing',
      },
      {
        file: path.join('team', 'team-tab.tsx'),
        line: 5,
        specifier: '../billing/billing-api',
        target: 'billing',
      },
      {
        file: path.join('team', 'team-tab.tsx'),
        line: 6,
        specifier: '../billing/billing-api',
        target: 'billing',
      },
      {
        file: path.join('team', 'team-tab.tsx'),
        line: 7,
        specifier: '../billing/styles.css',
        target: 'billing',
      },
      {
        file: path.join('team', 'team-tab.tsx'),
        line: 8,
        specifier: '../billing/invoice-list',
        target: 'billing',
      },
    ])
  })

  it('reads import specifiers across lines and quote styles', () => {
    expect(importSpecifiers('import {\n  a,\n} from "./a"\nimport("./b")\nexport * from \'./c\'')).toEqual([
      { specifier: './a', line: 3 },
      { specifier: './b', line: 4 },
      { specifier: './c', line: 5 },
    ])
  })

  it('fails the command on a cross-feature import and names it', async () => {
    await write('team/team-tab.tsx', "import { list } from '../billing/invoice-list'\n")
    const failed = await run('npx', ['tsx', 'scripts/check-feature-imports.ts', features], {
      cwd: root,
    }).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    )
    expect(failed?.code).toBe(1)
    expect(failed?.stderr).toContain(
      "team-tab.tsx:1 imports '../billing/invoice-list' from the billing feature",
    )
  })

  it("passes the web app's own features", async () => {
    expect(findCrossFeatureImports(path.join(root, 'apps/web/app/features'))).toEqual([])
    await expect(
      run('npx', ['tsx', 'scripts/check-feature-imports.ts'], { cwd: root }),
    ).resolves.toBeDefined()
  })
})
