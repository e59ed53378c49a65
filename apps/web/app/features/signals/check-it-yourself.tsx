import { useEffect, useState } from 'react'
import { Card } from '../../components/ui/layout'
import { recordLinks } from './record-api'

const code = 'rounded bg-slate-800 px-1.5 py-0.5 font-mono text-[0.85em] text-emerald-200'

/**
 * How anyone can check the record without trusting us: what the commitments and the hash chain
 * are, the ledger downloads, and the command that recomputes every hash. Static text, so it is in
 * the prerendered page; the chain head comes with the record.
 */
export function CheckItYourself({ head }: { head: { seq: number; hash: string } | null | undefined }) {
  // The command names this site; at build time there is no site yet, so it is filled in the browser.
  const [origin, setOrigin] = useState('https://<this site>')
  useEffect(() => setOrigin(window.location.origin), [])

  return (
    <section aria-labelledby="check-heading" className="space-y-6">
      <div>
        <h2 id="check-heading" className="text-2xl font-bold text-white">
          Check it yourself
        </h2>
        <p className="mt-2 max-w-3xl text-slate-300">
          You do not have to trust our database. Every figure on this page is computed from a public,
          append-only ledger that anyone can download and check with a few lines of code.
        </p>
      </div>

      <Card>
        <h3 className="font-semibold text-white">Chain head</h3>
        <p className="mt-1 text-sm text-slate-300">
          The latest entry of the ledger. Note it down: if any earlier entry were ever changed, this hash
          would no longer match.
        </p>
        {head === undefined ? (
          <p className="mt-3 text-sm text-slate-400">Loading the chain head...</p>
        ) : head === null ? (
          <p className="mt-3 text-sm text-slate-300">The ledger is empty: nothing has been published yet.</p>
        ) : (
          <dl className="mt-3 grid gap-2 text-sm sm:grid-cols-[8rem_1fr]">
            <dt className="text-slate-400">Entry</dt>
            <dd className="font-semibold text-white">#{head.seq}</dd>
            <dt className="text-slate-400">Hash</dt>
            <dd className="break-all font-mono text-emerald-200">{head.hash}</dd>
          </dl>
        )}
      </Card>

      <ol className="grid gap-4 lg:grid-cols-3">
        <li>
          <Card className="h-full">
            <h3 className="font-semibold text-white">1. Picks are sealed before they play</h3>
            <p className="mt-2 text-sm text-slate-300">
              When a pick or signal is published we store its content with a random 128-bit{' '}
              <code className={code}>salt</code> and publish only its commitment:
            </p>
            <p className="mt-2 break-words text-sm text-slate-200">
              <code className={code}>commitment = SHA-256(JCS(content + salt))</code>
            </p>
            <p className="mt-2 text-sm text-slate-300">
              JCS is the RFC 8785 canonical JSON, so every language produces the same bytes. The salt stops
              anyone from guessing a premium pick by hashing every possible selection.
            </p>
          </Card>
        </li>
        <li>
          <Card className="h-full">
            <h3 className="font-semibold text-white">2. Every step is chained</h3>
            <p className="mt-2 text-sm text-slate-300">
              Each publication, settlement and void appends one entry{' '}
              <code className={code}>{'{ seq, type, signalId, at, prevHash, hash, data }'}</code>:
            </p>
            <p className="mt-2 break-words text-sm text-slate-200">
              <code className={code}>hash = SHA-256(prevHash + JCS(entry without hash))</code>
            </p>
            <p className="mt-2 text-sm text-slate-300">
              The first <code className={code}>prevHash</code> is 64 zeros. Changing any past entry changes
              its hash and breaks every link after it. Our database also refuses edits and deletions.
            </p>
          </Card>
        </li>
        <li>
          <Card className="h-full">
            <h3 className="font-semibold text-white">3. Settled picks are revealed</h3>
            <p className="mt-2 text-sm text-slate-300">
              Once a signal is settled or voided, its content and salt become public. Hash them again and you
              get the commitment published before the event: proof that the pick was not changed after the
              result was known.
            </p>
          </Card>
        </li>
      </ol>

      <Card>
        <h3 className="font-semibold text-white">Download the ledger</h3>
        <p className="mt-1 text-sm text-slate-300">
          Up to 1,000 entries per file, oldest first; add <code className={code}>&after=1000</code> to the
          address for the next ones.
        </p>
        <ul className="mt-3 flex flex-wrap gap-3">
          <li>
            <a
              href={recordLinks.ledgerJson}
              download="edgeclub-ledger.json"
              className="inline-flex rounded-lg border border-slate-600 bg-slate-900 px-4 py-2 text-sm font-semibold text-slate-100 hover:border-emerald-400 hover:text-emerald-300"
            >
              Ledger as JSON
            </a>
          </li>
          <li>
            <a
              href={recordLinks.ledgerCsv}
              download="edgeclub-ledger.csv"
              className="inline-flex rounded-lg border border-slate-600 bg-slate-900 px-4 py-2 text-sm font-semibold text-slate-100 hover:border-emerald-400 hover:text-emerald-300"
            >
              Ledger as CSV
            </a>
          </li>
        </ul>
        <h3 className="mt-6 font-semibold text-white">Verify it with one command</h3>
        <p className="mt-1 text-sm text-slate-300">
          From a copy of the EdgeClub source, this recomputes every hash of the chain and every revealed
          commitment, and prints OK or the first entry that does not match:
        </p>
        <pre className="mt-3 overflow-x-auto rounded-lg bg-slate-950 p-4 text-sm text-emerald-200 ring-1 ring-slate-800">
          <code>npm run verify-record -- {origin}</code>
        </pre>
        <p className="mt-2 text-sm text-slate-300">
          It also accepts a downloaded JSON file instead of the address (it then checks the chain; the address
          lets it fetch and check every revealed pick too).
        </p>
      </Card>
    </section>
  )
}
