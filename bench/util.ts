import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'

export const root = path.resolve(import.meta.dirname, '..')

export function tempDir(): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), 'edgeclub-bench-'))
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0
}
