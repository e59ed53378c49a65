// Draws the installable dashboard's PNG icons (the favicon's mark: a rising line on emerald) into
// public/icons. Run by hand when the mark changes: `node apps/web/scripts/make-icons.mjs`.
import fs from 'node:fs'
import path from 'node:path'
import { deflateSync } from 'node:zlib'

const out = path.resolve(import.meta.dirname, '../public/icons')
const EMERALD = [0x34, 0xd3, 0x99]
const INK = [0x05, 0x2e, 0x16]
const LINE = [
  [8, 21],
  [13, 15],
  [17, 18],
  [24, 9],
]

function distanceToSegment(px, py, [ax, ay], [bx, by]) {
  const dx = bx - ax
  const dy = by - ay
  const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)))
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy))
}

/** One sample in the favicon's 32-unit box: the colour there, or null outside the rounded square. */
function sample(x, y, { maskable }) {
  // Maskable icons are cropped to a circle of 80%: the mark is drawn smaller, the background full-bleed.
  const scale = maskable ? 0.7 : 1
  const ux = (x - 16) / scale + 16
  const uy = (y - 16) / scale + 16
  if (!maskable) {
    const r = 8
    const cx = Math.max(r, Math.min(32 - r, x))
    const cy = Math.max(r, Math.min(32 - r, y))
    if (Math.hypot(x - cx, y - cy) > r) return null
  }
  for (let i = 0; i < LINE.length - 1; i++)
    if (distanceToSegment(ux, uy, LINE[i], LINE[i + 1]) <= 1.5) return INK
  return EMERALD
}

function crcTable() {
  const table = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    table[n] = c >>> 0
  }
  return table
}
const CRC = crcTable()
const crc32 = (data) => {
  let c = 0xffffffff
  for (const byte of data) c = CRC[(c ^ byte) & 0xff] ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}
function chunk(type, data) {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(body))
  return Buffer.concat([length, body, crc])
}

function png(size, options) {
  const rows = []
  const grid = 4
  for (let py = 0; py < size; py++) {
    const row = Buffer.alloc(1 + size * 4)
    for (let px = 0; px < size; px++) {
      let r = 0
      let g = 0
      let b = 0
      let a = 0
      for (let sy = 0; sy < grid; sy++)
        for (let sx = 0; sx < grid; sx++) {
          const colour = sample(
            ((px + (sx + 0.5) / grid) / size) * 32,
            ((py + (sy + 0.5) / grid) / size) * 32,
            options,
          )
          if (!colour) continue
          r += colour[0]
          g += colour[1]
          b += colour[2]
          a += 1
        }
      const n = grid * grid
      row.set(
        a
          ? [Math.round(r / a), Math.round(g / a), Math.round(b / a), Math.round((255 * a) / n)]
          : [0, 0, 0, 0],
        1 + px * 4,
      )
    }
    rows.push(row)
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(size, 0)
  header.writeUInt32BE(size, 4)
  header.set([8, 6, 0, 0, 0], 8)
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows), { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

fs.mkdirSync(out, { recursive: true })
fs.writeFileSync(path.join(out, 'icon-192.png'), png(192, { maskable: false }))
fs.writeFileSync(path.join(out, 'icon-512.png'), png(512, { maskable: false }))
fs.writeFileSync(path.join(out, 'maskable-512.png'), png(512, { maskable: true }))
fs.writeFileSync(path.join(out, 'badge-96.png'), png(96, { maskable: true }))
console.log(`icons written to ${out}`)
