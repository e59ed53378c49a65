import { BlockList, isIPv4 } from 'node:net'

/** Loopback, private and link-local ranges: where a proxy of ours connects from. */
const INTERNAL = new BlockList()
for (const [network, prefix] of [
  ['127.0.0.0', 8],
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['169.254.0.0', 16],
] as const)
  INTERNAL.addSubnet(network, prefix, 'ipv4')
for (const [network, prefix] of [
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
] as const)
  INTERNAL.addSubnet(network, prefix, 'ipv6')

function checkAddress(address: string): boolean {
  const mapped = address.toLowerCase().startsWith('::ffff:') ? address.slice(7) : address
  return isIPv4(mapped) ? INTERNAL.check(mapped, 'ipv4') : INTERNAL.check(address, 'ipv6')
}

/**
 * The answers for the addresses connections came from lately. A BlockList check builds a
 * SocketAddress each time (~30 µs), and Fastify asks on every read of `request.ip`, several times a
 * request; behind a proxy the connecting addresses are a handful. Bounded: emptied when full.
 */
const checked = new Map<string, boolean>()
const CHECKED_MAX = 1_024

function isInternalAddress(address: string): boolean {
  let internal = checked.get(address)
  if (internal === undefined) {
    internal = checkAddress(address)
    if (checked.size >= CHECKED_MAX) checked.clear()
    checked.set(address, internal)
  }
  return internal
}

/**
 * Fastify's trustProxy for the configured value. A list of addresses is passed as it is. A count N
 * believes the last N entries of X-Forwarded-For only when the connection itself comes from a
 * loopback or private address: a client that reaches the server straight from the Internet and
 * writes the header itself is never believed (Fastify no longer takes a bare count for that reason).
 */
export function trustProxyOption(
  trust: false | number | string[],
): false | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust !== 'number') return trust
  const hops = trust
  return (address, hop) => hop < hops && (hop > 0 || isInternalAddress(address))
}
