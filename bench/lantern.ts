import fs from 'node:fs/promises'
import path from 'node:path'

/**
 * `npx tsx bench/lantern.ts <BENCH_LHR_DIR> <page file name>` (e.g. `_dashboard_tab_payments`):
 * replays what Lighthouse simulated a page's LCP from (the trace and the DevtoolsLog that
 * `BENCH_LHR_DIR` keeps) through Lighthouse's own Lantern model, and lists every request and
 * main-thread task the simulated LCP waited for, with its simulated start and end. The last to end is
 * the LCP; what ends just before it is what to make smaller or start sooner.
 *
 * Lantern counts every request that ended before the page's observed LCP (scripts, styles, the API
 * answers), but of the main thread only the tasks that first ran a script and those that laid the page
 * out: on a first visit the LCP is mostly the time to download the scripts over a slow phone network.
 */

interface SimulatedNode {
  type: 'network' | 'cpu'
  duration: number
  request: { url: string; resourceType: string; transferSize: number; connectionId: number }
  getEvaluateScriptURLs(): Set<string>
  didPerformLayout(): boolean
}
interface Estimate {
  timeInMs: number
  nodeTimings: Map<SimulatedNode, { startTime: number; endTime: number }>
}

const [dir, name] = process.argv.slice(2)
if (!dir || !name) {
  console.error(
    'usage: npx tsx bench/lantern.ts <BENCH_LHR_DIR> <page file name, e.g. _dashboard_tab_payments>',
  )
  process.exit(2)
}
const lighthouse = path.dirname(path.dirname(import.meta.resolve('lighthouse').replace('file://', '')))
const { LanternLargestContentfulPaint } = (await import(
  path.join(lighthouse, 'core/computed/metrics/lantern-largest-contentful-paint.js')
)) as {
  LanternLargestContentfulPaint: {
    request(
      data: unknown,
      context: unknown,
    ): Promise<{ timing: number; optimisticEstimate: Estimate; pessimisticEstimate: Estimate }>
  }
}
const trace = JSON.parse(await fs.readFile(path.join(dir, `${name}.trace.json`), 'utf8'))
const saved = JSON.parse(await fs.readFile(path.join(dir, `${name}.artifacts.json`), 'utf8'))
const result = await LanternLargestContentfulPaint.request(
  {
    trace,
    devtoolsLog: saved.DevtoolsLog,
    gatherContext: saved.GatherContext,
    settings: saved.settings,
    URL: saved.URL,
    SourceMaps: saved.SourceMaps,
    simulator: null,
  },
  { computedCache: new Map(), settings: saved.settings },
)

const describe = (node: SimulatedNode) => {
  if (node.type === 'network') {
    const { request } = node
    return `${request.resourceType} ${request.url.replace(/^https?:\/\/[^/]+/, '').slice(0, 70)} (${request.transferSize} B, connection ${request.connectionId})`
  }
  const scripts = [...node.getEvaluateScriptURLs()].map((url) => url.split('/').pop()).join(', ')
  return `main thread ${(node.duration / 1000).toFixed(0)} ms as observed${scripts ? `, runs ${scripts}` : ''}${node.didPerformLayout() ? ', layout' : ''}`
}

console.log(
  `simulated LCP ${result.timing.toFixed(0)} ms (optimistic ${result.optimisticEstimate.timeInMs.toFixed(0)}, pessimistic ${result.pessimisticEstimate.timeInMs.toFixed(0)})`,
)
for (const [label, estimate] of [
  ['optimistic', result.optimisticEstimate],
  ['pessimistic', result.pessimisticEstimate],
] as const) {
  console.log(`\n${label}: start → end (ms)`)
  for (const [node, timing] of [...estimate.nodeTimings].sort((a, b) => a[1].startTime - b[1].startTime))
    console.log(
      `${timing.startTime.toFixed(0).padStart(6)} → ${timing.endTime.toFixed(0).padStart(6)}  ${describe(node)}`,
    )
}
