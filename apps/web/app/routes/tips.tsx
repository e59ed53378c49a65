import { paths, site } from '@edgeclub/shared'
import { Link } from 'react-router'
import { ButtonLink } from '../components/ui/button'
import { Card, Container, PageHero } from '../components/ui/layout'
import { seo } from '../lib/seo'

export function meta() {
  return seo(
    'Tips',
    'Sample EdgeClub picks: a featured pick, daily picks with win rates, bankroll and line-shopping strategy, and live updates.',
  )
}

// All content on this page is hard-coded sample data.
const featured = {
  league: 'NBA',
  matchup: 'Boston Celtics at Milwaukee Bucks',
  pick: 'Celtics -3.5',
  odds: '-110',
  confidence: '82%',
  reasoning:
    'Boston is 9-2 against the spread on the road this month and Milwaukee rests two starters on the second night of a back-to-back.',
}

const dailyPicks = [
  { league: 'NFL', matchup: 'Chiefs vs Bills', pick: 'Over 47.5', winRate: '76%' },
  { league: 'NBA', matchup: 'Nuggets vs Suns', pick: 'Nuggets ML', winRate: '81%' },
  { league: 'NHL', matchup: 'Rangers vs Bruins', pick: 'Under 5.5', winRate: '72%' },
  { league: 'Soccer', matchup: 'Arsenal vs Chelsea', pick: 'Arsenal -0.5', winRate: '74%' },
  { league: 'UFC', matchup: 'Main event', pick: 'Favourite by decision', winRate: '69%' },
]

const strategies = [
  {
    title: 'Bankroll management',
    body: 'Stake 2-5% of your bankroll per wager. Flat stakes survive cold streaks; chasing losses does not.',
  },
  {
    title: 'Line shopping',
    body: 'Compare odds across books before you bet. Half a point on a spread is worth more than most tips.',
  },
  {
    title: 'Fade the public',
    body: 'When 75% of tickets pile onto one side, the value often sits on the other. Follow the money, not the crowd.',
  },
]

const updates = [
  { time: '7:42 PM', text: 'Line moved: Celtics -3.5 → -4.5 after the Bucks injury report.' },
  { time: '6:15 PM', text: 'Chiefs vs Bills total climbs to 48 as the wind forecast drops.' },
  { time: '4:30 PM', text: 'Afternoon card settled 4-1 (+2.9 units).' },
]

export default function Tips() {
  return (
    <>
      <PageHero
        title="Today's tips"
        intro={`A taste of what members get every day across the ${site.sports.join(', ')}. Sample picks for illustration.`}
      />
      <Container className="grid gap-8 py-14 lg:grid-cols-3">
        <div className="min-w-0 space-y-8 lg:col-span-2">
          <section aria-labelledby="featured-heading">
            <Card className="border-emerald-400/60">
              <p className="text-sm font-semibold uppercase tracking-wider text-emerald-300">
                Featured pick · {featured.league}
              </p>
              <h2 id="featured-heading" className="mt-2 text-2xl font-bold text-white">
                {featured.matchup}
              </h2>
              <p className="mt-3 text-lg text-white">
                <span className="font-semibold">{featured.pick}</span>{' '}
                <span className="text-slate-400">({featured.odds})</span> · Confidence {featured.confidence}
              </p>
              <p className="mt-3 text-slate-300">{featured.reasoning}</p>
            </Card>
          </section>

          <section aria-labelledby="daily-heading">
            <h2 id="daily-heading" className="text-2xl font-bold text-white">
              Daily picks
            </h2>
            <div className="mt-4 overflow-x-auto rounded-2xl border border-slate-800">
              <table className="w-full min-w-[32rem] text-left text-sm">
                <caption className="sr-only">Daily picks with the win rate of each pick type</caption>
                <thead className="bg-slate-900 text-slate-300">
                  <tr>
                    <th scope="col" className="px-4 py-3 font-semibold">
                      League
                    </th>
                    <th scope="col" className="px-4 py-3 font-semibold">
                      Matchup
                    </th>
                    <th scope="col" className="px-4 py-3 font-semibold">
                      Pick
                    </th>
                    <th scope="col" className="px-4 py-3 font-semibold">
                      Win rate
                    </th>
                  </tr>
                </thead>
                <tbody className="divide-y divide-slate-800">
                  {dailyPicks.map((pick) => (
                    <tr key={pick.matchup}>
                      <td className="px-4 py-3 text-slate-300">{pick.league}</td>
                      <td className="px-4 py-3 text-white">{pick.matchup}</td>
                      <td className="px-4 py-3 text-white">{pick.pick}</td>
                      <td className="px-4 py-3 font-semibold text-emerald-300">{pick.winRate}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </section>

          <section aria-labelledby="strategy-heading">
            <h2 id="strategy-heading" className="text-2xl font-bold text-white">
              Strategy tips
            </h2>
            <ul className="mt-4 grid gap-4 sm:grid-cols-3">
              {strategies.map((strategy) => (
                <li key={strategy.title}>
                  <Card className="h-full p-5">
                    <h3 className="font-semibold text-white">{strategy.title}</h3>
                    <p className="mt-2 text-sm text-slate-300">{strategy.body}</p>
                  </Card>
                </li>
              ))}
            </ul>
          </section>
        </div>

        <aside className="space-y-6" aria-labelledby="updates-heading">
          <Card>
            <h2 id="updates-heading" className="text-xl font-bold text-white">
              Live updates
            </h2>
            <ol className="mt-4 space-y-4">
              {updates.map((update) => (
                <li key={update.time} className="border-l-2 border-emerald-400 pl-3">
                  <p className="text-xs font-semibold text-emerald-300">{update.time}</p>
                  <p className="text-sm text-slate-200">{update.text}</p>
                </li>
              ))}
            </ol>
          </Card>
          <Card>
            <h2 className="text-xl font-bold text-white">Check our record</h2>
            <p className="mt-2 text-sm text-slate-300">
              The picks on this page are samples. Every real pick is sealed in a public hash chain before it
              plays, and its result counts in a record you can verify yourself.
            </p>
            <Link
              to={paths.record}
              className="mt-3 inline-block font-semibold text-emerald-300 underline-offset-4 hover:underline"
            >
              See the verified record
            </Link>
          </Card>
          <Card className="text-center">
            <p className="text-lg font-semibold text-white">Want every pick, every day?</p>
            <p className="mt-2 text-sm text-slate-300">
              Members get the full card with stakes and live alerts.
            </p>
            <ButtonLink to={paths.register} className="mt-4 w-full">
              Get Premium Tips
            </ButtonLink>
          </Card>
        </aside>
      </Container>
    </>
  )
}
