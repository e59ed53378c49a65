import { paths } from '@edgeclub/shared'
import { Button, ButtonLink } from '../components/ui/button'
import { Container, PageHero } from '../components/ui/layout'
import { CheckItYourself } from '../features/record/check-it-yourself'
import { fetchRecord } from '../features/record/record-api'
import { RecordSections } from '../features/record/record-sections'
import { seo } from '../lib/seo'
import { useRemoteData } from '../lib/use-remote-data'

export function meta() {
  return seo(
    'Verified record',
    'The EdgeClub track record, computed from a public hash chain: every pick sealed before it plays, every settlement, ROI and win rate with sample sizes, and a ledger you can verify yourself.',
  )
}

/** The record moves only when a signal settles; a minute is fresh enough for a public page. */
const REFRESH_MS = 60_000

/** The public, verifiable record. Prerendered; the figures come from GET /record in the browser. */
export default function Record() {
  const { status, data, reload } = useRemoteData(fetchRecord, { refreshMs: REFRESH_MS })
  return (
    <>
      <PageHero
        title="Verified record"
        intro="Every pick and trading signal is sealed in a public hash chain before it plays. The figures below are computed from the settlements in that chain, with the sample size beside every rate."
      />
      <Container className="space-y-16 py-14">
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
        <CheckItYourself head={data ? data.head : undefined} />
        <div className="rounded-2xl border border-emerald-400/40 bg-emerald-400/10 p-6 text-center">
          <p className="text-lg font-semibold text-white">Get every pick the moment it is published</p>
          <p className="mt-2 text-sm text-slate-200">
            Members see each pick and signal in full, live, before it plays.
          </p>
          <ButtonLink to={paths.pricing} className="mt-4">
            See membership plans
          </ButtonLink>
        </div>
      </Container>
    </>
  )
}
