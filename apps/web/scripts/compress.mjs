// Precompresses the built pages and assets so the server sends .br/.gz files instead of compressing per request.
import fs from 'node:fs/promises'
import path from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'

const root = path.resolve(import.meta.dirname, '../build/client')
const compressible = /\.(html|js|css|svg|json|txt|xml|webmanifest)$/

async function* walk(dir) {
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) yield* walk(full)
    else yield full
  }
}

let count = 0
for await (const file of walk(root)) {
  if (!compressible.test(file)) continue
  const data = await fs.readFile(file)
  if (data.length < 1024) continue
  await fs.writeFile(`${file}.gz`, gzipSync(data, { level: 9 }))
  await fs.writeFile(
    `${file}.br`,
    brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
  )
  count += 1
}
console.log(`precompressed ${count} assets`)
