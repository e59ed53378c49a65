import { isIP } from 'node:net'
import path from 'node:path'
import { API_BASE, paths } from '@edgeclub/shared'
import { z } from 'zod'

/**
 * The only reader of process.env. Everything the server can be told comes through here, validated,
 * so a bad value stops the start with a message that names the variable instead of failing later.
 */

/** Discord's API, where the OAuth2 token endpoint lives too. */
const DISCORD_API = 'https://discord.com/api'

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

/** proxy-addr's names for address ranges. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal'])

function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true
  const [address = '', range, ...rest] = entry.split('/')
  const family = isIP(address)
  if (!family || rest.length > 0) return false
  if (range === undefined) return true
  if (/^\d{1,3}$/.test(range)) return Number(range) <= (family === 4 ? 32 : 128)
  return family === 4 && isIP(range) === 4
}

/**
 * Which X-Forwarded-For entries to believe: none (false), the last N hops (a count), or those added
 * by the listed proxies. "true" would believe whatever a client writes in the header, so every per-IP
 * limit could be sidestepped; it is refused with what to write instead.
 */
const TrustProxySchema = z
  .string()
  .trim()
  .default('false')
  .transform((value, context): false | number | string[] => {
    const lower = value.toLowerCase()
    if (lower === '' || lower === 'false' || lower === '0') return false
    if (lower === 'true')
      context.addIssue({
        code: 'custom',
        message:
          'must not be true: that believes any X-Forwarded-For a client sends. Set the number of proxies in front of the server (1 for one load balancer) or their addresses (e.g. 10.0.0.0/8,127.0.0.1)',
      })
    else if (/^\d+$/.test(lower)) {
      const hops = Number(lower)
      if (hops <= 20) return hops
      context.addIssue({ code: 'custom', message: 'must be at most 20 proxies' })
    } else {
      const entries = lower.split(',').map((entry) => entry.trim())
      const bad = entries.filter((entry) => !isProxyAddress(entry))
      if (bad.length === 0) return entries
      context.addIssue({
        code: 'custom',
        message: `must be a number of proxies or a comma-separated list of proxy addresses or CIDR ranges; not an address: ${bad.join(', ')}`,
      })
    }
    return z.NEVER
  })

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
  LEDGER_SIGNING_KEY: optionalString.pipe(
    z
      .string()
      .regex(/^[A-Za-z0-9+/_-]{43}=?$/, 'must be a 32-byte Ed25519 seed in base64')
      .optional(),
  ),
  ADMIN_EMAIL: optionalString.pipe(z.email({ message: 'must be an email address' }).optional()),
  ADMIN_PASSWORD: optionalString,
  STRIPE_SECRET_KEY: optionalString,
  STRIPE_PUBLISHABLE_KEY: optionalString,
  STRIPE_WEBHOOK_SECRET: optionalString,
  STRIPE_API_BASE: optionalUrl,
  STRIPE_JS_URL: optionalUrl,
  STRIPE_TEST_CLOCKS: optionalString.pipe(
    z.enum(['true', 'false'], 'STRIPE_TEST_CLOCKS must be true or false').optional(),
  ),
  DISCORD_BOT_TOKEN: optionalString,
  DISCORD_GUILD_ID: optionalString,
  DISCORD_INVITE_CHANNEL_ID: optionalString,
  DISCORD_MEMBER_ROLE_ID: optionalString,
  DISCORD_ANNOUNCE_CHANNEL_ID: optionalString,
  DISCORD_SIGNALS_CHANNEL_ID: optionalString,
  DISCORD_API_BASE: optionalUrl,
  DISCORD_INVITE_MAX_AGE_HOURS: z.coerce.number().int().min(1).max(168).default(24),
  DISCORD_ON_ACCESS_END: z.enum(['remove-role', 'kick']).default('remove-role'),
  DISCORD_INVITE_URL_BASE: optionalUrl,
  DISCORD_CLIENT_ID: optionalString,
  DISCORD_CLIENT_SECRET: optionalString,
  DISCORD_OAUTH_REDIRECT_URI: optionalUrl,
  DISCORD_REQUIRE_VERIFIED: optionalString.pipe(
    z.enum(['true', 'false'], { message: 'must be true or false' }).optional(),
  ),
  TELEGRAM_BOT_TOKEN: optionalString.pipe(
    z
      .string()
      .regex(/^\d{1,20}:[A-Za-z0-9_-]{20,}$/, 'must be the token @BotFather gave, such as 123456:ABC-DEF...')
      .optional(),
  ),
  TELEGRAM_WEBHOOK_SECRET: optionalString.pipe(
    z
      .string()
      .regex(/^[A-Za-z0-9_-]{16,256}$/, 'must be 16 to 256 of A-Z a-z 0-9 _ - (Telegram allows only these)')
      .optional(),
  ),
  TELEGRAM_API_BASE: optionalUrl,
  TELEGRAM_LINK_BASE: optionalUrl,
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
  JOBS_POLL_SECONDS: z.coerce.number().min(0.5).max(60).default(2),
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(2_000),
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(3_000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  TRUST_PROXY: TrustProxySchema,
  METRICS_TOKEN: optionalString.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
  METRICS_PORT: optionalString.pipe(
    z
      .string()
      .regex(/^\d+$/, 'must be a port (1-65535)')
      .transform(Number)
      .pipe(z.number().int().min(1, 'must be a port (1-65535)').max(65535, 'must be a port (1-65535)'))
      .optional(),
  ),
  METRICS_HOST: optionalString,
  VAPID_PUBLIC_KEY: optionalString.pipe(
    z
      .string()
      .regex(
        /^[A-Za-z0-9_-]{86,88}$/,
        'must be a base64url P-256 public key (npx web-push generate-vapid-keys)',
      )
      .optional(),
  ),
  VAPID_PRIVATE_KEY: optionalString.pipe(
    z
      .string()
      .regex(
        /^[A-Za-z0-9_-]{42,44}$/,
        'must be a base64url P-256 private key (npx web-push generate-vapid-keys)',
      )
      .optional(),
  ),
  VAPID_SUBJECT: optionalString.pipe(
    z
      .string()
      .regex(/^(mailto:\S+@\S+|https:\/\/\S+)$/, 'must be a mailto: or https: URL')
      .optional(),
  ),
  PUSH_SERVICE_ORIGINS: optionalString,
  PUSH_STANDIN_URL: optionalUrl,
})

export type Env = z.infer<typeof EnvSchema>

/** A flood limit: this many messages in any window of this many seconds. */
export interface TelegramLimit {
  messages: number
  seconds: number
}

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
  /** The Ed25519 seed (base64) that signs the record's heads; unset: generated (decision 020). */
  ledgerSigningKey: string | undefined
  admin: { email: string; password: string } | undefined
  stripe: {
    secretKey: string | undefined
    publishableKey: string | undefined
    webhookSecret: string | undefined
    apiBase: string | undefined
    jsUrl: string | undefined
    /** Each new Stripe customer on a test clock of its own (test mode only: tests and the demo move it). */
    testClocks: boolean
  }
  discord: {
    botToken: string | undefined
    guildId: string | undefined
    inviteChannelId: string | undefined
    memberRoleId: string | undefined
    announceChannelId: string | undefined
    /** Where published signals are posted, content and all: a channel only members can read. */
    signalsChannelId: string | undefined
    apiBase: string | undefined
    /** How long an invite stays valid. */
    inviteMaxAgeHours: number
    /** What happens in the server when access ends: the member role goes, or the member is kicked. */
    onAccessEnd: 'remove-role' | 'kick'
    /** Where invite links point (https://discord.gg; the emulator's join page in the demo). */
    inviteUrlBase: string
    /**
     * Connect Discord (OAuth2 authorization code with identify and guilds.join): the application's
     * credentials, where Discord sends members back, and Discord's consent page. Unset: no Connect
     * Discord button, invites only.
     */
    oauth:
      | {
          clientId: string
          clientSecret: string
          /** Registered with the application in Discord's developer portal, exactly. */
          redirectUri: string
          authorizeUrl: string
          /** Where the token endpoint and /users/@me are: DISCORD_API_BASE, else Discord's. */
          apiBase: string
        }
      | undefined
    /** Only Discord accounts members connected (verified) get the member role; typed usernames never do. */
    requireVerified: boolean
  }
  /**
   * The Telegram bot (grammY, webhook mode): its token, the secret Telegram sends back in
   * X-Telegram-Bot-Api-Secret-Token, and where the Bot API and t.me links are (the emulator in the
   * demo). Unset: no Telegram anywhere.
   */
  telegram:
    | {
        botToken: string
        webhookSecret: string
        /** grammY's apiRoot (https://api.telegram.org). */
        apiBase: string
        /** Where deep links point (https://t.me). */
        linkBase: string
        /** Where Telegram delivers updates: this server's /discord/api/webhooks/telegram. */
        webhookUrl: string
      }
    | undefined
  btcpay: {
    url: string | undefined
    apiKey: string | undefined
    storeId: string | undefined
    webhookSecret: string | undefined
  }
  mail: { smtpUrl: string | undefined; from: string }
  priceFeedUrl: string
  logLevel: Env['LOG_LEVEL']
  /** Proxies whose X-Forwarded-For entries are believed: none, the last N hops, or these addresses. */
  trustProxy: false | number | string[]
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
    /**
     * Telegram's flood limits as the bot keeps them: at most `messages` in any `seconds` overall and
     * into one group or channel; a private chat about one a second after a short `burst`.
     */
    telegram: {
      global: TelegramLimit
      group: TelegramLimit
      private: TelegramLimit & { burst: number }
    }
  }
  /** Days a member keeps access after a renewal fails, while they update their card. */
  billing: { graceDays: number }
  /** The built web app (apps/web/build/client); undefined serves the API only. */
  webRoot: string | undefined
  /**
   * Background jobs (pg-boss) in this process: how often idle workers look for work, and a factor on
   * every queue's retry delays (1 in production; tests shorten the waits).
   */
  jobs: { pollSeconds: number; retryDelayScale: number }
  /** How long to wait on PostgreSQL before answering 503 (connect, and each statement). */
  database: { timeouts: { connectMs: number; statementMs: number } }
  /**
   * Prometheus metrics (GET /metrics): on the app's port for a Bearer token, and/or on a listener of
   * their own (host, port) that the network keeps private, where the token is asked too when set.
   * Unset: no /metrics and nothing collected.
   */
  metrics: { token: string | undefined; listener: { host: string; port: number } | undefined }
  /**
   * Web push (decision 023): the VAPID key pair when set (else generated: DATA_DIR with the embedded
   * database, the database with PostgreSQL), who runs the server for the push services, and the push
   * services sent to (the browsers' own, plus PUSH_SERVICE_ORIGINS such as the emulator's).
   */
  push: {
    vapid: { publicKey: string; privateKey: string } | undefined
    subject: string
    serviceOrigins: string[]
    /**
     * Outside production, a push service the dashboard subscribes at instead of the browser's own
     * (the emulator's, offline, where the browser's cannot be reached); its origin is sent to too.
     */
    standInUrl: string | undefined
    timeoutMs: number
  }
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

/** The address of a From header ("EdgeClub <no-reply@edgeclub.io>" → no-reply@edgeclub.io). */
function addressOf(from: string): string {
  return /<([^>]+)>/.exec(from)?.[1]?.trim() ?? from.trim()
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
  if (e.NODE_ENV === 'production' && e.STRIPE_TEST_CLOCKS === 'true')
    problems.push('STRIPE_TEST_CLOCKS must not be set in production')
  if (Boolean(e.ADMIN_EMAIL) !== Boolean(e.ADMIN_PASSWORD))
    problems.push('ADMIN_EMAIL and ADMIN_PASSWORD must be set together')
  if (Boolean(e.DISCORD_CLIENT_ID) !== Boolean(e.DISCORD_CLIENT_SECRET))
    problems.push('DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET must be set together')
  if (e.DISCORD_OAUTH_REDIRECT_URI && !e.DISCORD_CLIENT_ID)
    problems.push('DISCORD_OAUTH_REDIRECT_URI needs DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET')
  const discordApiBase = (e.DISCORD_API_BASE ?? DISCORD_API).replace(/\/$/, '')
  if (e.DISCORD_CLIENT_ID && !/\/api$/.test(discordApiBase))
    problems.push(
      "DISCORD_API_BASE must end in /api for Connect Discord (Discord's consent page is found beside it, at /oauth2/authorize)",
    )
  if (e.DISCORD_REQUIRE_VERIFIED === 'true' && !e.DISCORD_CLIENT_ID)
    problems.push(
      'DISCORD_REQUIRE_VERIFIED=true needs Connect Discord (DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET): without it no member could get the role',
    )
  if (e.METRICS_PORT !== undefined && e.METRICS_PORT === e.PORT)
    problems.push('METRICS_PORT must differ from PORT (or leave it unset and use METRICS_TOKEN on PORT)')
  if (e.METRICS_HOST && e.METRICS_PORT === undefined) problems.push('METRICS_HOST needs METRICS_PORT')
  if (Boolean(e.TELEGRAM_BOT_TOKEN) !== Boolean(e.TELEGRAM_WEBHOOK_SECRET))
    problems.push(
      'TELEGRAM_BOT_TOKEN and TELEGRAM_WEBHOOK_SECRET must be set together (the bot runs in webhook mode; Telegram sends the secret with every update)',
    )
  if (e.NODE_ENV === 'production' && e.PUSH_STANDIN_URL)
    problems.push('PUSH_STANDIN_URL must not be set in production')
  if (Boolean(e.VAPID_PUBLIC_KEY) !== Boolean(e.VAPID_PRIVATE_KEY))
    problems.push('VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY must be set together')
  const pushServiceOrigins = (e.PUSH_SERVICE_ORIGINS ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
  for (const origin of pushServiceOrigins)
    if (!URL.canParse(origin) || new URL(origin).origin !== origin.replace(/\/$/, ''))
      problems.push(`PUSH_SERVICE_ORIGINS must list origins (scheme://host:port); not one: ${origin}`)
  if (problems.length > 0) throw new ConfigError(`Invalid environment: ${problems.join('; ')}`)

  const port = e.PORT
  const appOrigin = (e.APP_ORIGIN ?? `http://127.0.0.1:${port}`).replace(/\/$/, '')
  return {
    env: e.NODE_ENV,
    port,
    host: e.HOST,
    dataDir: path.resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    appOrigin,
    jwtSecret: e.JWT_SECRET,
    ledgerSigningKey: e.LEDGER_SIGNING_KEY,
    admin:
      e.ADMIN_EMAIL && e.ADMIN_PASSWORD ? { email: e.ADMIN_EMAIL, password: e.ADMIN_PASSWORD } : undefined,
    stripe: {
      secretKey: e.STRIPE_SECRET_KEY,
      publishableKey: e.STRIPE_PUBLISHABLE_KEY,
      webhookSecret: e.STRIPE_WEBHOOK_SECRET,
      apiBase: e.STRIPE_API_BASE,
      jsUrl: e.STRIPE_JS_URL,
      testClocks: e.STRIPE_TEST_CLOCKS === 'true',
    },
    discord: {
      botToken: e.DISCORD_BOT_TOKEN,
      guildId: e.DISCORD_GUILD_ID,
      inviteChannelId: e.DISCORD_INVITE_CHANNEL_ID,
      memberRoleId: e.DISCORD_MEMBER_ROLE_ID,
      announceChannelId: e.DISCORD_ANNOUNCE_CHANNEL_ID,
      signalsChannelId: e.DISCORD_SIGNALS_CHANNEL_ID,
      apiBase: e.DISCORD_API_BASE,
      inviteMaxAgeHours: e.DISCORD_INVITE_MAX_AGE_HOURS,
      onAccessEnd: e.DISCORD_ON_ACCESS_END,
      inviteUrlBase: (e.DISCORD_INVITE_URL_BASE ?? 'https://discord.gg').replace(/\/$/, ''),
      oauth:
        e.DISCORD_CLIENT_ID && e.DISCORD_CLIENT_SECRET
          ? {
              clientId: e.DISCORD_CLIENT_ID,
              clientSecret: e.DISCORD_CLIENT_SECRET,
              redirectUri: e.DISCORD_OAUTH_REDIRECT_URI ?? `${appOrigin}${paths.discordCallback}`,
              // https://discord.com/api → https://discord.com/oauth2/authorize, and the same beside the emulator's API.
              authorizeUrl: `${discordApiBase.replace(/\/api$/, '')}/oauth2/authorize`,
              apiBase: discordApiBase,
            }
          : undefined,
      requireVerified: e.DISCORD_REQUIRE_VERIFIED === 'true',
    },
    telegram:
      e.TELEGRAM_BOT_TOKEN && e.TELEGRAM_WEBHOOK_SECRET
        ? {
            botToken: e.TELEGRAM_BOT_TOKEN,
            webhookSecret: e.TELEGRAM_WEBHOOK_SECRET,
            apiBase: (e.TELEGRAM_API_BASE ?? 'https://api.telegram.org').replace(/\/$/, ''),
            linkBase: (e.TELEGRAM_LINK_BASE ?? 'https://t.me').replace(/\/$/, ''),
            webhookUrl: `${appOrigin}${API_BASE}/webhooks/telegram`,
          }
        : undefined,
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
      telegram: {
        global: { messages: 30, seconds: 1 },
        group: { messages: 20, seconds: 60 },
        private: { messages: 1, seconds: 1, burst: 3 },
      },
    },
    billing: { graceDays: e.GRACE_PERIOD_DAYS },
    webRoot: defaults.webRoot,
    jobs: { pollSeconds: e.JOBS_POLL_SECONDS, retryDelayScale: 1 },
    database: {
      timeouts: { connectMs: e.DATABASE_CONNECT_TIMEOUT_MS, statementMs: e.DATABASE_STATEMENT_TIMEOUT_MS },
    },
    push: {
      vapid:
        e.VAPID_PUBLIC_KEY && e.VAPID_PRIVATE_KEY
          ? { publicKey: e.VAPID_PUBLIC_KEY, privateKey: e.VAPID_PRIVATE_KEY }
          : undefined,
      subject:
        e.VAPID_SUBJECT ?? `mailto:${e.ADMIN_EMAIL ?? addressOf(e.MAIL_FROM ?? 'no-reply@edgeclub.io')}`,
      serviceOrigins: [
        ...pushServiceOrigins.map((origin) => new URL(origin).origin),
        ...(e.PUSH_STANDIN_URL ? [new URL(e.PUSH_STANDIN_URL).origin] : []),
      ],
      standInUrl: e.PUSH_STANDIN_URL?.replace(/\/$/, ''),
      timeoutMs: 10_000,
    },
    metrics: {
      token: e.METRICS_TOKEN,
      listener:
        e.METRICS_PORT === undefined ? undefined : { host: e.METRICS_HOST ?? e.HOST, port: e.METRICS_PORT },
    },
  }
}
