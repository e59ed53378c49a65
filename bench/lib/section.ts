import type { BigDataset } from './dataset'
import type { SectionOutput } from './figures'

/** What every section gets: a logger, the PostgreSQL server, and the big dataset built on first use. */
export interface BenchContext {
  log(line: string): void
  /** The PostgreSQL server (BENCH_DATABASE_URL), as an admin connection string. */
  postgresUrl: string
  /** 1M members / 10M payments, built once per run (or reused with BENCH_KEEP_DATA=1). */
  dataset(): Promise<BigDataset>
}

/**
 * One file per section under bench/sections/, listed in bench/run.ts. A section returns figures
 * (each with its goal) and any details worth keeping; it never prints a verdict itself.
 */
export interface Section {
  name: string
  /** Older names still accepted on the command line (`npm run bench -- lists`). */
  aliases?: string[]
  title: string
  run(context: BenchContext): Promise<SectionOutput>
}
