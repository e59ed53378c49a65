import fs from 'node:fs'
import Fastify from 'fastify'

/**
 * The floor for a JSON answer on this machine: Fastify with its defaults, answering fixed bytes from
 * memory. Started as its own process, like the app, by bench/lib/servers.ts.
 */
const payloads = JSON.parse(fs.readFileSync(process.env.BARE_PAYLOADS!, 'utf8')) as Record<string, string>
const app = Fastify()
app.get('/bare/ready', (_request, reply) => reply.send({ ok: true }))
for (const [name, body] of Object.entries(payloads)) {
  app.get(`/bare/${name}`, (_request, reply) => reply.type('application/json; charset=utf-8').send(body))
}
await app.listen({ port: Number(process.env.BARE_PORT), host: '127.0.0.1' })
process.on('SIGTERM', () => {
  void app.close().then(() => process.exit(0))
})
