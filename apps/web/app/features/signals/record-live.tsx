import { Button } from '../../components/ui/button'
import { defineIsland } from '../../lib/island'
import { useRemoteData } from '../../lib/use-remote-data'
import { CheckItYourself } from './check-it-yourself'
import { fetchRecord } from './record-api'
import { RecordSections } from './record-sections'
import { RecordWitness } from './record-witness'

/** The record moves only when a signal settles; a minute is fresh enough for a public page. */
const REFRESH_MS = 60_000

/**
 * The figures of the public record, fetched from GET /record in the browser, and the chain head in
 * "check it yourself". The only interactive part of the prerendered /record page (an island).
 */
function RecordLive() {
  const { status, data, reload } = useRemoteData(fetchRecord, { refreshMs: REFRESH_MS })
  return (
    <div className="space-y-16">
      {/* Space is kept while the record loads, so the section below does not jump (layout shift). */}
      <div className={data ? '' : 'min-h-[40rem]'}>
        {status === 'loading' && !data ? (
          <p role="status" className="text-center text-slate-300">
            Loading the verified record...
          </p>
        ) : null}
        {status === 'error' && !data ? (
          <div
            role="alert"
            className="mx-auto max-w-md rounded-xl border border-rose-500/40 bg-rose-500/10 p-6 text-center"
          >
            <p className="font-semibold text-rose-200">The record could not be loaded. Please try again.</p>
            <Button className="mt-4" variant="secondary" onClick={() => reload()}>
              Try Again
            </Button>
          </div>
        ) : null}
        {data ? <RecordSections record={data} /> : null}
      </div>
      {/* This browser checks the record against the signed head it kept (lazily, after first paint). */}
      <RecordWitness />
      <CheckItYourself head={data ? data.head : undefined} />
    </div>
  )
}

export const recordIsland = defineIsland('record', RecordLive)
