import { createHash, createPrivateKey, randomBytes, sign } from 'node:crypto'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { bytesToHex, entryPreimage, headMessage, type LedgerEntry, MerkleTree } from '@edgeclub/shared'
import { sql } from 'kysely'
import { openDatabase } from '../../apps/api/src/db/database'
import { expect, test } from '../support/fixtures'
import { createMember, newMember } from '../support/members'
import { freePort, type RunningServer, startServer } from '../support/server'

const ADMIN = { email: 'witness.admin@edgeclub.test', password: 'Witne$$Admin123' }
const sha = (data: Uint8Array) => new Uint8Array(createHash('sha256').update(data).digest())
const shaText = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex')

/**
 * What a dishonest operator with the database and the key can do: stop the site, turn the triggers
 * off, make the lost pick a win, recompute every later hash and re-sign every head from there on.
 */
async function rewriteHistory(dataDir: string, seed: Buffer) {
  const key = createPrivateKey({
    key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]),
    format: 'der',
    type: 'pkcs8',
  })
  const database = await openDatabase({ pgliteDir: dataDir })
  const db = database.db
  try {
    const rows = (
      await sql<{
        seq: number
        type: LedgerEntry['type']
        signal_id: string
        at: string
        hash: string
        data: LedgerEntry['data']
      }>`select seq, type, signal_id, at, hash, data from signal_ledger order by seq`.execute(db)
    ).rows
    const target = rows.find((row) => row.type === 'settle')!
    await sql`alter table signal_ledger disable trigger user`.execute(db)
    await sql`alter table ledger_heads disable trigger user`.execute(db)
    let prevHash = rows[target.seq - 2]!.hash
    for (const row of rows.slice(target.seq - 1)) {
      const data = row.seq === target.seq ? { result: 'won' as const, profitUnits: 0.91 } : row.data
      const unsigned = { seq: row.seq, type: row.type, signalId: row.signal_id, at: row.at, prevHash, data }
      const hash = shaText(entryPreimage(unsigned))
      await sql`update signal_ledger set data = ${JSON.stringify(data)}::json, prev_hash = ${prevHash},
        hash = ${hash} where seq = ${row.seq}`.execute(db)
      prevHash = hash
    }
    const hashes = (await sql<{ hash: string }>`select hash from signal_ledger order by seq`.execute(db)).rows
    const tree = new MerkleTree(sha)
    for (const row of hashes) tree.append(row.hash)
    await sql`delete from ledger_heads where size >= ${target.seq}`.execute(db)
    for (let size = target.seq; size <= tree.size; size++) {
      const head = { size, rootHash: bytesToHex(tree.root(size)), timestamp: Date.now() }
      const signature = sign(null, headMessage(head), key).toString('base64')
      await sql`insert into ledger_heads (size, root_hash, timestamp, signature)
        values (${size}, ${head.rootHash}, ${head.timestamp}, ${signature})`.execute(db)
    }
    await sql`alter table signal_ledger enable trigger user`.execute(db)
    await sql`alter table ledger_heads enable trigger user`.execute(db)
  } finally {
    await database.close()
  }
}

test('a member who visited the Signals tab is warned, with evidence to download, after the record history is rewritten', async ({
  browser,
}) => {
  test.setTimeout(240_000)
  const seed = randomBytes(32)
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'edgeclub-witness-'))
  const port = await freePort()
  const env = {
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    LEDGER_SIGNING_KEY: seed.toString('base64'),
  }
  let server: RunningServer | undefined = await startServer(env, { port, dataDir })
  const context = await browser.newContext({ baseURL: server.url })
  try {
    const page = await context.newPage()
    const api = context.request
    // The analyst's day: a pick published, played and lost.
    const login = await api.post('/discord/api/auth/login', { data: ADMIN })
    const token = ((await login.json()) as { data: { tokens: { accessToken: string } } }).data.tokens
      .accessToken
    const headers = { authorization: `Bearer ${token}` }
    const published = await api.post('/discord/api/signals', {
      headers,
      data: {
        kind: 'pick',
        sport: 'NBA',
        event: 'Celtics vs Knicks',
        startsAt: new Date(Date.now() + 2_000).toISOString(),
        market: 'moneyline',
        selection: 'Celtics',
        odds: 1.91,
        stake: 1,
      },
    })
    expect(published.status(), await published.text()).toBe(201)
    const { id } = ((await published.json()) as { data: { id: string } }).data
    await page.waitForTimeout(2_500)
    const settled = await api.post(`/discord/api/signals/${id}/settle`, { headers, data: { result: 'lost' } })
    expect(settled.status(), await settled.text()).toBe(200)

    // A member visits the Signals tab: the browser checks the record and keeps its signed head.
    const member = await createMember(api, newMember())
    await page.goto('/login')
    await page.getByLabel('Email').fill(member.email)
    await page.getByLabel('Password', { exact: true }).fill(member.password)
    await page.getByRole('button', { name: 'Sign In to Dashboard' }).click()
    await expect(page).toHaveURL(/\/dashboard/)
    await page.goto('/dashboard?tab=signals')
    await expect(
      page.getByRole('status').filter({ hasText: 'Record checked: signed head #2 verified' }),
    ).toBeVisible()
    expect(await page.evaluate(() => localStorage.getItem('edgeclub.recordHead'))).toContain('"size":2')

    // The operator rewrites the loss into a win, with the chain and every signed head recomputed.
    await server.stop()
    server = undefined
    await rewriteHistory(dataDir, seed)
    server = await startServer(env, { port, dataDir })

    // The member's next visit: an unmissable warning, and the evidence to take away.
    await page.goto('/dashboard?tab=signals')
    const alert = page.getByRole('alert').filter({ hasText: "the record's history has changed" })
    await expect(alert).toBeVisible({ timeout: 30_000 })
    await expect(alert).toContainText('its history was rewritten')
    const download = page.waitForEvent('download')
    await alert.getByRole('button', { name: 'Download evidence' }).click()
    const file = await (await download).path()
    const evidence = JSON.parse(await fs.readFile(file, 'utf8')) as {
      storedHead: { size: number; rootHash: string }
      currentHead: { size: number; rootHash: string }
      headAtStoredSize: { rootHash: string }
    }
    expect(evidence.storedHead.size).toBe(2)
    expect(evidence.currentHead.size).toBe(2)
    expect(evidence.currentHead.rootHash).not.toBe(evidence.storedHead.rootHash)
    expect(evidence.headAtStoredSize.rootHash).toBe(evidence.currentHead.rootHash)
    // The kept head is not replaced by the rewritten one: the warning stays on the next visit too.
    await page.goto('/record')
    await expect(
      page.getByRole('alert').filter({ hasText: "the record's history has changed" }),
    ).toBeVisible()
  } finally {
    await context.close()
    await server?.stop()
    await fs.rm(dataDir, { recursive: true, force: true })
  }
})
