import { defineConfig } from 'vitest/config'

/**
 * Unit and API integration tests. The API suite runs on the embedded database and, when
 * TEST_DATABASE_URL is set (CI), once more on that PostgreSQL server.
 */
const apiOnPostgres = process.env.TEST_DATABASE_URL
  ? [
      {
        extends: true as const,
        test: {
          name: 'api:postgres',
          include: ['apps/api/test/**/*.test.ts'],
          globalSetup: ['apps/api/test/helpers/global-setup.ts'],
          env: { TEST_DB: 'postgres' },
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
    ]
  : []

export default defineConfig({
  test: {
    projects: [
      { extends: true, test: { name: 'shared', include: ['packages/shared/src/**/*.test.ts'] } },
      {
        extends: true,
        test: { name: 'emulator', include: ['packages/emulator/**/*.test.ts'], testTimeout: 30_000 },
      },
      { extends: true, test: { name: 'web', include: ['apps/web/app/**/*.test.{ts,tsx}'] } },
      { extends: true, test: { name: 'scripts', include: ['scripts/**/*.test.ts'], testTimeout: 30_000 } },
      {
        extends: true,
        test: {
          name: 'api:pglite',
          include: ['apps/api/{src,test}/**/*.test.ts'],
          globalSetup: ['apps/api/test/helpers/global-setup.ts'],
          env: { TEST_DB: 'pglite' },
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      ...apiOnPostgres,
    ],
  },
})
