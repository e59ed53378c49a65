import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from './config'

describe('configuration', () => {
  it('starts with no environment at all, on the embedded database', () => {
    const config = loadConfig({})
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: undefined,
      appOrigin: 'http://127.0.0.1:3000',
    })
    expect(config.dataDir.endsWith('/data')).toBe(true)
  })

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ STRIPE_API_BASE: 'not a url' }, 'STRIPE_API_BASE'],
    [{ SMTP_URL: 'http://mail' }, 'SMTP_URL'],
    [{ JWT_SECRET: 'short' }, 'JWT_SECRET'],
    [{ ADMIN_EMAIL: 'boss@example.com' }, 'ADMIN_PASSWORD'],
    [{ NODE_ENV: 'production' }, 'JWT_SECRET'],
    [{ TRUST_PROXY: 'true' }, 'TRUST_PROXY must not be true'],
    [{ TRUST_PROXY: '10.0.0.0/33' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: 'proxy.internal' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: '50' }, 'TRUST_PROXY'],
    [{ METRICS_TOKEN: 'short' }, 'METRICS_TOKEN'],
    [{ METRICS_PORT: '70000' }, 'METRICS_PORT'],
    [{ METRICS_PORT: '3000' }, 'METRICS_PORT must differ from PORT'],
    [{ METRICS_HOST: '0.0.0.0' }, 'METRICS_HOST needs METRICS_PORT'],
    [{ DISCORD_CLIENT_ID: '100000000000000099' }, 'DISCORD_CLIENT_SECRET'],
    [{ DISCORD_OAUTH_REDIRECT_URI: 'http://127.0.0.1:3000/back' }, 'DISCORD_CLIENT_ID'],
    [
      { DISCORD_OAUTH_REDIRECT_URI: 'not a url', DISCORD_CLIENT_ID: 'a', DISCORD_CLIENT_SECRET: 'b' },
      'DISCORD_OAUTH_REDIRECT_URI',
    ],
    [{ DISCORD_REQUIRE_VERIFIED: 'yes' }, 'DISCORD_REQUIRE_VERIFIED'],
    [{ DISCORD_REQUIRE_VERIFIED: 'true' }, 'DISCORD_REQUIRE_VERIFIED=true needs Connect Discord'],
    [
      { DISCORD_CLIENT_ID: 'a', DISCORD_CLIENT_SECRET: 'b', DISCORD_API_BASE: 'http://127.0.0.1:4010/v10' },
      'DISCORD_API_BASE must end in /api',
    ],
    [
      {
        NODE_ENV: 'production',
        JWT_SECRET: 'x'.repeat(40),
        STRIPE_JS_URL: 'http://127.0.0.1:4010/stripe-js/v3',
      },
      'STRIPE_JS_URL',
    ],
  ])('refuses %j with a message naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError)
    expect(() => loadConfig(env)).toThrow(new RegExp(`Invalid environment: .*${variable}`))
  })

  it('exposes metrics only when METRICS_TOKEN or METRICS_PORT is set, the listener on HOST by default', () => {
    expect(loadConfig({}).metrics).toEqual({ token: undefined, listener: undefined })
    expect(loadConfig({ HOST: '0.0.0.0', METRICS_PORT: '9464' }).metrics.listener).toEqual({
      host: '0.0.0.0',
      port: 9464,
    })
    expect(loadConfig({ METRICS_TOKEN: 'a'.repeat(16) }).metrics.token).toBe('a'.repeat(16))
  })

  it('reads TRUST_PROXY as nothing, a number of proxies, or their addresses', () => {
    expect(loadConfig({}).trustProxy).toBe(false)
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false)
    expect(loadConfig({ TRUST_PROXY: '0' }).trustProxy).toBe(false)
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1)
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2)
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,loopback,::1/128' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '127.0.0.1',
      'loopback',
      '::1/128',
    ])
  })

  it('tells what to write instead of TRUST_PROXY=true', () => {
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(
      /TRUST_PROXY must not be true: that believes any X-Forwarded-For a client sends\. Set the number of proxies .*\(1 for one load balancer\) or their addresses/,
    )
  })

  it('sets up Connect Discord from the client id and secret, redirecting to the dashboard by default', () => {
    expect(loadConfig({}).discord).toMatchObject({ oauth: undefined, requireVerified: false })
    const discord = loadConfig({
      APP_ORIGIN: 'https://club.example/',
      DISCORD_CLIENT_ID: '100000000000000099',
      DISCORD_CLIENT_SECRET: 'shh',
      DISCORD_REQUIRE_VERIFIED: 'true',
    }).discord
    expect(discord.requireVerified).toBe(true)
    expect(discord.oauth).toEqual({
      clientId: '100000000000000099',
      clientSecret: 'shh',
      redirectUri: 'https://club.example/dashboard/discord/callback',
      authorizeUrl: 'https://discord.com/oauth2/authorize',
      apiBase: 'https://discord.com/api',
    })
  })

  it("finds the emulator's consent page beside its API, and keeps an explicit redirect URI", () => {
    const oauth = loadConfig({
      DISCORD_CLIENT_ID: 'a',
      DISCORD_CLIENT_SECRET: 'b',
      DISCORD_API_BASE: 'http://127.0.0.1:4010/discord/api/',
      DISCORD_OAUTH_REDIRECT_URI: 'http://127.0.0.1:5173/dashboard/discord/callback',
      DISCORD_REQUIRE_VERIFIED: 'false',
    }).discord.oauth
    expect(oauth).toMatchObject({
      authorizeUrl: 'http://127.0.0.1:4010/discord/oauth2/authorize',
      apiBase: 'http://127.0.0.1:4010/discord/api',
      redirectUri: 'http://127.0.0.1:5173/dashboard/discord/callback',
    })
  })
})
