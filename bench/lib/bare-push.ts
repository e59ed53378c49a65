import fs from 'node:fs'
import { createPushClient } from '../../apps/api/src/integrations/webpush/push-client'

/**
 * The bare baseline of push delivery: the app's own push client (web-push's encryption and VAPID
 * signature, fetch) sending one payload to each endpoint with the same concurrency as the app's
 * sender, and nothing else — no database, no queue, no access checks. Run as a process of its own:
 * `node --import tsx bench/lib/bare-push.ts <job.json>`; prints `{ ms, cpuMs, sent, failed }`.
 */
interface Job {
  endpoints: string[]
  keys: { p256dh: string; auth: string }
  vapid: { publicKey: string; privateKey: string; subject: string }
  payload: string
  concurrency: number
}

const job = JSON.parse(fs.readFileSync(process.argv[2]!, 'utf8')) as Job
const client = createPushClient(job.vapid, { timeoutMs: 30_000 })
let next = 0
let sent = 0
let failed = 0
const started = performance.now()
const cpuBefore = process.cpuUsage()
await Promise.all(
  Array.from({ length: job.concurrency }, async () => {
    while (next < job.endpoints.length) {
      const endpoint = job.endpoints[next++]!
      const outcome = await client.send({ endpoint, keys: job.keys }, job.payload, {
        topic: 'bare',
        ttlSeconds: 60,
        urgency: 'high',
      })
      if (outcome.status === 'sent') sent += 1
      else failed += 1
    }
  }),
)
const cpu = process.cpuUsage(cpuBefore)
process.stdout.write(
  `${JSON.stringify({ ms: performance.now() - started, cpuMs: Math.round((cpu.user + cpu.system) / 1000), sent, failed })}\n`,
)
