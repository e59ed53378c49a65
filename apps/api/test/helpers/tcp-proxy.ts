import net from 'node:net'

/**
 * A TCP proxy between the app and PostgreSQL that a test can cut: `partition()` stops forwarding
 * (established connections go silent, new ones are accepted and left hanging, as on a broken
 * network), `heal()` resets what was cut and forwards again.
 */
export interface TcpProxy {
  port: number
  partition(): void
  heal(): void
  close(): Promise<void>
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let cut = false
  const open = new Set<{ client: net.Socket; upstream: net.Socket | null }>()

  const server = net.createServer((client) => {
    const pair: { client: net.Socket; upstream: net.Socket | null } = { client, upstream: null }
    open.add(pair)
    client.on('error', () => {})
    client.on('close', () => {
      pair.upstream?.destroy()
      open.delete(pair)
    })
    if (cut) {
      // Accepted, never answered: the app must time out on its own.
      client.pause()
      return
    }
    const upstream = net.connect(target.port, target.host)
    pair.upstream = upstream
    upstream.on('error', () => client.destroy())
    upstream.on('close', () => client.destroy())
    client.pipe(upstream)
    upstream.pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo

  return {
    port,
    partition() {
      cut = true
      for (const { client, upstream } of open) {
        client.unpipe()
        upstream?.unpipe()
        client.pause()
        upstream?.pause()
      }
    },
    heal() {
      // Connections that lived through the cut have lost bytes: like a reset after a partition.
      for (const { client, upstream } of open) {
        client.destroy()
        upstream?.destroy()
      }
      open.clear()
      cut = false
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const { client, upstream } of open) {
          client.destroy()
          upstream?.destroy()
        }
        server.close(() => resolve())
      }),
  }
}
