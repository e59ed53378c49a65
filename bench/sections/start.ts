import fs from 'node:fs/promises'
import { buildPgliteTemplate } from '../../apps/api/src/cli/pglite-template'
import { atMost, figure } from '../lib/figures'
import type { Section } from '../lib/section'
import { startApp } from '../lib/servers'
import { sleep } from '../lib/util'

/**
 * Start and memory of the real server on the embedded database: spawn → first /readyz 200 on a fresh
 * DATA_DIR (the database made from the build's template, plans seeded), then again on the same
 * DATA_DIR; resident memory (VmRSS) once the process has been at rest for BENCH_REST_S (5) seconds.
 * The template is what `npm run build` makes once per schema; it is made here first if missing, as an
 * install would, outside the measured process.
 */
export const startSection: Section = {
  name: 'start',
  title: 'start time and memory at rest (embedded database)',
  async run({ log }) {
    log(`database template: ${await buildPgliteTemplate()}`)
    const first = await startApp()
    const dataDir = first.dataDir
    let rssMB = 0
    let secondMs = 0
    let secondCpuMs = 0
    try {
      await sleep(Number(process.env.BENCH_REST_S ?? 5) * 1000)
      rssMB = await first.rssMB()
    } finally {
      // Keep the data directory for the second start; the first process owned a fresh temp dir.
      await first.stopProcess()
    }
    const second = await startApp({ dataDir })
    secondMs = second.startMs
    secondCpuMs = second.startCpuMs
    await second.stop()
    await fs.rm(dataDir, { recursive: true, force: true })
    return {
      figures: [
        figure('start.firstMs', 'first start to /readyz (fresh DATA_DIR)', first.startMs / 1000, {
          unit: 's',
          goal: atMost(3),
        }),
        figure('start.firstCpuMs', 'CPU used by the first start', first.startCpuMs / 1000, {
          unit: 's',
          note: 'user + system time of the server process: steadier than wall time on a busy machine',
        }),
        figure('start.secondMs', 'second start to /readyz (same DATA_DIR)', secondMs / 1000, { unit: 's' }),
        figure('start.secondCpuMs', 'CPU used by the second start', secondCpuMs / 1000, { unit: 's' }),
        figure('start.rssMB', 'RSS at rest after start', rssMB, { unit: 'MB', goal: atMost(200) }),
      ],
    }
  },
}
