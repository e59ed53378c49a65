import path from 'node:path'
import { z } from 'zod'

/**
 * The only reader of process.env. Everything the server can be told comes through here, validated,
 * so a bad value stops the start with a message that names the variable instead of failing later.
 */

const DEFAULT_PRICE_FEED_URL =
  'https://api.coingecko.com/api/v3/coins/markets?vs_currency=usd&ids=bitcoin,ethereum,solana&price_change_percentage=24h'

const optionalString = z
  .string()
  .trim()
  .transform((value) => (value === '' ? undefined : value))
  .optional()

const optionalUrl = optionalString.pipe(
  z.url({ message: 'must be a URL such as http://127.0.0.1:4010' }).optional(),
)

const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: optionalString.pipe(
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// connection string')
      .optional(),
  ),
  APP_ORIGIN: optionalUrl,
  JWT_SECRET: optionalString.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
  ADMIN_EMAIL: optionalString.pipe(z.email({ message: 'must be an email address' }).optional()),
  ADMIN_PASSWORD: optionalString,
  STRIPE_SECRET_KEY: optionalString,
  STRIPE_PUBLISHABLE_KEY: optionalString,
  STRIPE_WEBHOOK_SECRET: optionalString,
  STRIPE_API_BASE: optionalUrl,
  STRIPE_JS_URL: optionalUrl,
  DISCORD_BOT_TOKEN: optionalString,
  DISCORD_GUILD_ID: optionalString,
  DISCORD_INVITE_CHANNEL_ID: optionalString,
  DISCORD_MEMBER_ROLE_ID: optionalString,
  DISCORD_ANNOUNCE_CHANNEL_ID: optionalString,
  DISCORD_API_BASE: optionalUrl,
  DISCORD_INVITE_MAX_AGE_HOURS: z.coerce.number().int().min(1).max(168).default(24),
  DISCORD_ON_ACCESS_END: z.enum(['remove-role', 'kick']).default('remove-role'),
  DISCORD_INVITE_URL_BASE: optionalUrl,
  BTCPAY_URL: optionalUrl,
  BTCPAY_API_KEY: optionalString,
  BTCPAY_STORE_ID: optionalString,
  BTCPAY_WEBHOOK_SECRET: optionalString,
  SMTP_URL: optionalString.pipe(
    z
      .string()
      .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
      .optional(),
  ),
  MAIL_FROM: optionalString,
  PRICE_FEED_URL: optionalUrl,
  GRACE_PERIOD_DAYS: z.coerce.number().int().min(0).max(30).default(3),
  PRICE_CACHE_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  TRUST_PROXY: z
    .enum(['true', 'false', '1', '0'])
    .default('false')
    .transform((value) => value === 'true' || value === '1'),
})

export type Env = z.infer<typeof EnvSchema>

export interface Config {
  env: Env['NODE_ENV']
  port: number
  host: string
  /** Where the embedded database, the generated JWT secret and the mail outbox live. */
  dataDir: string
  /** PostgreSQL server; when absent the embedded database in dataDir is used. */
  databaseUrl: string | undefined
  appOrigin: string
  jwtSecret: string | undefined
  admin: { email: string; password: string } | undefined
  stripe: {
    secretKey: string | undefined
    publishableKey: string | undefined
    webhookSecret: string | undefined
    apiBase: string | undefined
    jsUrl: string | undefined
  }
  discord: {
    botToken: string | undefined
    guildId: string | undefined
    inviteChannelId: string | undefined
    memberRoleId: string | undefined
    announceChannelId: string | undefined
    apiBase: string | undefined
    /** How long an invite stays valid. */
    inviteMaxAgeHours: number
    /** What happens in the server when access ends: the member role goes, or the member is kicked. */
    onAccessEnd: 'remove-role' | 'kick'
    /** Where invite links point (https://discord.gg; the emulator's join page in the demo). */
    inviteUrlBase: string
  }
  btcpay: {
    url: string | undefined
    apiKey: string | undefined
    storeId: string | undefined
    webhookSecret: string | undefined
  }
  mail: { smtpUrl: string | undefined; from: string }
  priceFeedUrl: string
  logLevel: Env['LOG_LEVEL']
  trustProxy: boolean
  /** Limits that tests and operators may tune; not read from the environment. */
  limits: {
    /** Requests per minute per IP across the API. */
    globalPerMinute: number
    /** Contact form posts per hour per IP. */
    contactPerHour: number
    /** Per-IP limits of the auth routes (the per-account lockout is separate, in the database). */
    auth: {
      loginPer15Min: number
      registerPerHour: number
      forgotPerHour: number
      resetPerHour: number
      refreshPerMinute: number
    }
    /** How long a fetched price list is served before the feed is asked again. */
    priceCacheMs: number
    /** Give up on the price feed after this long. */
    priceFeedTimeoutMs: number
  }
  /** Days a member keeps access after a renewal fails, while they update their card. */
  billing: { graceDays: number }
  /** The built web app (apps/web/build/client); undefined serves the API only. */
  webRoot: string | undefined
  /** Background jobs (pg-boss) in this process: how often idle workers look for work. */
  jobs: { pollSeconds: number }
}

export class ConfigError extends Error {
  override name = 'ConfigError'
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map(
      (issue) =>
        `${issue.path.join('.') || '(environment)'} ${issue.message.replace(/^Invalid input: /, '')}`,
    )
    .join('; ')
}

export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  defaults: { webRoot?: string } = {},
): Config {
  const parsed = EnvSchema.safeParse(env)
  if (!parsed.success) throw new ConfigError(`Invalid environment: ${describeIssues(parsed.error)}`)
  const e = parsed.data
  const problems: string[] = []

  if (e.NODE_ENV === 'production' && !e.JWT_SECRET)
    problems.push('JWT_SECRET is required when NODE_ENV=production')
  if (e.NODE_ENV === 'production' && e.STRIPE_JS_URL)
    problems.push('STRIPE_JS_URL must not be set in production')
  if (Boolean(e.ADMIN_EMAIL) !== Boolean(e.ADMIN_PASSWORD))
    problems.push('ADMIN_EMAIL and ADMIN_PASSWORD must be set together')
  if (problems.length > 0) throw new ConfigError(`Invalid environment: ${problems.join('; ')}`)

  const port = e.PORT
  return {
    env: e.NODE_ENV,
    port,
    host: e.HOST,
    dataDir: path.resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    appOrigin: (e.APP_ORIGIN ?? `http://127.0.0.1:${port}`).replace(/\/$/, ''),
    jwtSecret: e.JWT_SECRET,
    admin:
      e.ADMIN_EMAIL && e.ADMIN_PASSWORD ? { email: e.ADMIN_EMAIL, password: e.ADMIN_PASSWORD } : undefined,
    stripe: {
      secretKey: e.STRIPE_SECRET_KEY,
      publishableKey: e.STRIPE_PUBLISHABLE_KEY,
      webhookSecret: e.STRIPE_WEBHOOK_SECRET,
      apiBase: e.STRIPE_API_BASE,
      jsUrl: e.STRIPE_JS_URL,
    },
    discord: {
      botToken: e.DISCORD_BOT_TOKEN,
      guildId: e.DISCORD_GUILD_ID,
      inviteChannelId: e.DISCORD_INVITE_CHANNEL_ID,
      memberRoleId: e.DISCORD_MEMBER_ROLE_ID,
      announceChannelId: e.DISCORD_ANNOUNCE_CHANNEL_ID,
      apiBase: e.DISCORD_API_BASE,
      inviteMaxAgeHours: e.DISCORD_INVITE_MAX_AGE_HOURS,
      onAccessEnd: e.DISCORD_ON_ACCESS_END,
      inviteUrlBase: (e.DISCORD_INVITE_URL_BASE ?? 'https://discord.gg').replace(/\/$/, ''),
    },
    btcpay: {
      url: e.BTCPAY_URL,
      apiKey: e.BTCPAY_API_KEY,
      storeId: e.BTCPAY_STORE_ID,
      webhookSecret: e.BTCPAY_WEBHOOK_SECRET,
    },
    mail: { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM ?? 'EdgeClub <no-reply@edgeclub.io>' },
    priceFeedUrl: e.PRICE_FEED_URL ?? DEFAULT_PRICE_FEED_URL,
    logLevel: e.LOG_LEVEL,
    trustProxy: e.TRUST_PROXY,
    limits: {
      globalPerMinute: 600,
      contactPerHour: 5,
      auth: {
        loginPer15Min: 50,
        registerPerHour: 20,
        forgotPerHour: 10,
        resetPerHour: 20,
        refreshPerMinute: 60,
      },
      priceCacheMs: e.PRICE_CACHE_SECONDS * 1000,
      priceFeedTimeoutMs: 5_000,
    },
    billing: { graceDays: e.GRACE_PERIOD_DAYS },
    webRoot: defaults.webRoot,
    jobs: { pollSeconds: 2 },
  }
}
