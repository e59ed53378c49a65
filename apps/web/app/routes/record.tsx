import { paths } from '@edgeclub/shared'
import { ButtonLink } from '../components/ui/button'
import { Container, PageHero } from '../components/ui/layout'
import { recordIsland } from '../features/signals/record-live'
import { Island, islandsPage } from '../lib/island'
import { seo } from '../lib/seo'

export function meta() {
  return seo(
    'Verified record',
    'The EdgeClub track record, computed from a public hash chain: every pick sealed before it plays, every settlement, ROI and win rate with sample sizes, and a ledger you can verify yourself.',
  )
}

export const handle = islandsPage

/** The public, verifiable record. Prerendered; the figures come from GET /record in the browser. */
export default function Record() {
  return (
    <>
      <PageHero
        title="Verified record"
        intro="Every pick and trading signal is sealed in a public hash chain before it plays. The figures below are computed from the settlements in that chain, with the sample size beside every rate."
      />
      <Container className="space-y-16 py-14">
        <Island of={recordIsland} />
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
