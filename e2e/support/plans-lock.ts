import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'

/**
 * The admin suite briefly puts a plan of its own on sale, and the pricing suite counts the plans on
 * sale: they take turns. Workers are separate processes, so the lock is a directory (mkdir is atomic),
 * named after the server's port so that separate runs never share it.
 */
export async function lockPlansOnSale(timeoutMs = 25_000): Promise<() => Promise<void>> {
  const port = new URL(process.env.E2E_BASE_URL ?? 'http://127.0.0.1:0').port
  const dir = path.join(os.tmpdir(), `edgeclub-e2e-plans-on-sale-${port}`)
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      await fs.mkdir(dir)
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      if (Date.now() > deadline) throw new Error(`Waited ${timeoutMs} ms for ${dir}`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
  let released = false
  return async () => {
    if (released) return
    released = true
    await fs.rm(dir, { recursive: true, force: true })
  }
}
