import { renderToString } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import { siteHeaderIsland } from '../components/site-header'
import { priceCardIsland } from '../features/market/price-card'
import { defineIsland, Island, IslandsPageProvider, isIslandsHandle, islandsPage } from './island'
import {
  type AppLinkProps,
  documentNavigation,
  type Navigation,
  NavigationProvider,
  routerHistoryState,
  useAppNavigation,
} from './navigation'

/** What app/islands.client.tsx hydrates an island's element with. */
function hydratedMarkup(node: React.ReactNode, pathname: string): string {
  return renderToString(<NavigationProvider value={documentNavigation(pathname)}>{node}</NavigationProvider>)
}

/** The markup inside an island's element on a prerendered page. */
function islandContent(html: string, name: string): string {
  const open = html.match(new RegExp(`<div class="contents" data-island="${name}"[^>]*>`))
  expect(open, `an element for the ${name} island`).not.toBeNull()
  const start = html.indexOf(open![0]) + open![0].length
  expect(html.endsWith('</div>')).toBe(true)
  return html.slice(start, -'</div>'.length)
}

function Greeting({ name }: { name: string }) {
  const { Link } = useAppNavigation()
  return (
    <p>
      Hello {name}, <Link to="/pricing">see the plans</Link>
    </p>
  )
}
const greetingIsland = defineIsland('greeting', Greeting)

describe('islands', () => {
  it('prerender an island exactly as the islands script hydrates it, so hydration matches', () => {
    for (const [island, name] of [
      [siteHeaderIsland, 'site-header'],
      [priceCardIsland, 'price-card'],
    ] as const) {
      const page = renderToString(
        <IslandsPageProvider pathname="/pricing">
          <Island of={island} />
        </IslandsPageProvider>,
      )
      expect(islandContent(page, name)).toBe(hydratedMarkup(<island.Component />, '/pricing'))
    }
  })

  it('carry their props as JSON for the islands script, and render plain links without the router', () => {
    const page = renderToString(
      <IslandsPageProvider pathname="/">
        <Island of={greetingIsland} name="Ann" />
      </IslandsPageProvider>,
    )
    expect(page).toContain('data-island-props="{&quot;name&quot;:&quot;Ann&quot;}"')
    expect(islandContent(page, 'greeting')).toBe(hydratedMarkup(<Greeting name="Ann" />, '/'))
    expect(page).toContain('<a href="/pricing">see the plans</a>')
  })

  it('are ordinary components inside the app, using the navigation the app provides', () => {
    const RouterLink = ({ to, ...props }: AppLinkProps) => <a href={to} data-router="yes" {...props} />
    const app: Navigation = { pathname: '/login', Link: RouterLink, navigate: () => {} }
    const page = renderToString(
      <NavigationProvider value={app}>
        <Island of={greetingIsland} name="Bo" />
      </NavigationProvider>,
    )
    expect(page).toContain('<a href="/pricing" data-router="yes">see the plans</a>')
  })

  it('mark the current page in the header navigation', () => {
    const page = renderToString(
      <IslandsPageProvider pathname="/tips">
        <Island of={siteHeaderIsland} />
      </IslandsPageProvider>,
    )
    expect(page).toMatch(/<a href="\/tips" aria-current="page" class="[^"]*text-emerald-300[^"]*">Tips<\/a>/)
    expect(page.match(/aria-current="page"/g)).toHaveLength(1)
  })

  it('are recognised from the route handle', () => {
    expect(isIslandsHandle(islandsPage)).toBe(true)
    expect(isIslandsHandle(undefined)).toBe(false)
    expect(isIslandsHandle({ islands: 'yes' })).toBe(false)
  })
})

describe('document navigation', () => {
  it('hands location state to the next page in the shape React Router reads from history.state', () => {
    const state = { from: '/pricing', planId: 'p1' }
    const first = routerHistoryState(state, null)
    expect(first).toMatchObject({ usr: state, idx: 1 })
    expect(first.key).toMatch(/^[a-z0-9]+$/)
    expect(routerHistoryState(state, { usr: null, key: 'default', idx: 4 }).idx).toBe(5)
  })
})
