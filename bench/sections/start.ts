import fs from 'node:fs/promises'
import { buildPgliteTemplate } from '../../apps/api/src/cli/build-pglite-template'
import { atMost, type Figure, figure } from '../lib/figures'
import type { Section } from '../lib/section'
import { ensureBuiltServer, productionNodeFlags, startApp } from '../lib/servers'
import { sleep } from '../lib/util'

/**
 * Start and memory of the real server on the embedded database, twice: the build as production runs
 * it (apps/api/dist/server.js with plain node and `npm start`'s flags; decision 018) and the sources
 * through tsx (development, the tests). Each: spawn → first /readyz 200 on a fresh DATA_DIR (the
 * database made from the template, plans seeded), then again on the same DATA_DIR; resident memory
 * (VmRSS) once the process has been at rest for BENCH_REST_S (5) seconds. The templates are what
 * `npm run build` makes; missing ones are made first, as an install would, outside the measured process.
 */

async function measure(built: boolean) {
  const first = await startApp({ built })
  const dataDir = first.dataDir
  let rssMB = 0
  try {
    await sleep(Number(process.env.BENCH_REST_S ?? 5) * 1000)
    rssMB = await first.rssMB()
  } finally {
    // Keep the data directory for the second start; the first process owned a fresh temp dir.
    await first.stopProcess()
  }
  const second = await startApp({ dataDir, built })
  await second.stop()
  await fs.rm(dataDir, { recursive: true, force: true })
  return { first, second, rssMB }
}

function figures(prefix: string, label: string, run: Awaited<ReturnType<typeof measure>>, goals: boolean) {
  return [
    figure(
      `${prefix}.firstMs`,
      `${label}: first start to /readyz (fresh DATA_DIR)`,
      run.first.startMs / 1000,
      {
        unit: 's',
        ...(goals ? { goal: atMost(2) } : {}),
      },
    ),
    figure(`${prefix}.firstCpuMs`, `${label}: CPU used by the first start`, run.first.startCpuMs / 1000, {
      unit: 's',
      note: 'user + system time of the server process: steadier than wall time on a busy machine',
    }),
    figure(
      `${prefix}.secondMs`,
      `${label}: second start to /readyz (same DATA_DIR)`,
      run.second.startMs / 1000,
      {
        unit: 's',
      },
    ),
    figure(`${prefix}.secondCpuMs`, `${label}: CPU used by the second start`, run.second.startCpuMs / 1000, {
      unit: 's',
    }),
    figure(`${prefix}.rssMB`, `${label}: RSS at rest after start`, run.rssMB, {
      unit: 'MB',
      ...(goals ? { goal: atMost(200) } : {}),
    }),
  ] satisfies Figure[]
}

export const startSection: Section = {
  name: 'start',
  title: 'start time and memory at rest (embedded database): the build, and the sources through tsx',
  async run({ log }) {
    ensureBuiltServer(log)
    log(`built server: node ${(await productionNodeFlags()).join(' ')} apps/api/dist/server.js`)
    log(`database template (sources): ${await buildPgliteTemplate()}`)
    const built = await measure(true)
    const sources = await measure(false)
    return {
      figures: [
        ...figures('start.built', 'built server', built, true),
        // The sources' figures keep the ids they had before the build existed, for comparison over time.
        ...figures('start', 'sources through tsx', sources, false),
      ],
    }
  },
}
