/**
 * Discord ids are snowflakes: milliseconds since the Discord epoch in the top bits. @discordjs/rest
 * recognises major parameters by `\d{17,19}`, so generated ids must look like real ones or its
 * per-guild/per-channel rate-limit queues would collapse into one.
 */

const DISCORD_EPOCH = 1_420_070_400_000n
let increment = 0n

export function snowflake(at: number = Date.now()): string {
  increment = (increment + 1n) & 0xfffn
  return (((BigInt(at) - DISCORD_EPOCH) << 22n) | (1n << 17n) | increment).toString()
}

export function isSnowflake(value: string): boolean {
  return /^\d{1,20}$/.test(value) && BigInt(value) < 2n ** 64n
}

/** Discord writes timestamps with microseconds and an explicit offset: 2024-05-01T12:00:00.000000+00:00 */
export function discordTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000+00:00')
}
