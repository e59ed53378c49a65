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
})
