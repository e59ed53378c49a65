import { type ReactNode, startTransition, useEffect } from 'react'
import { hydrateRoot } from 'react-dom/client'
import { pricingPlansIsland } from './components/pricing-plans'
import { siteHeaderIsland } from './components/site-header'
import { contactFormIsland } from './features/contact/contact-form'
import { priceCardIsland } from './features/market/price-card'
import { recordIsland } from './features/signals/record-live'
import { ISLAND_ATTRIBUTE, ISLAND_PROPS_ATTRIBUTE, type IslandDefinition } from './lib/island'
import { documentNavigation, NavigationProvider } from './lib/navigation'
import { session } from './lib/session-store'

/**
 * The only script of a prerendered public page (built by vite.islands.config.ts): React without
 * the router, hydrating each island of the page on its own root. An island that a page uses must be
 * listed here.
 */
// biome-ignore lint/suspicious/noExplicitAny: each island has its own props, read back from its JSON
const islands: IslandDefinition<any>[] = [
  siteHeaderIsland,
  priceCardIsland,
  pricingPlansIsland,
  contactFormIsland,
  recordIsland,
]

declare global {
  interface Window {
    /** Buttons pressed before the islands were live, held by the loader in the page's head. */
    __islandsPending?: { targets: HTMLElement[]; release: () => void }
  }
}

/** Reports, once, that the island inside has hydrated and run its effects (children's run first). */
function Hydrated({ onHydrated, children }: { onHydrated: () => void; children: ReactNode }) {
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, when the island first commits
  useEffect(onHydrated, [])
  return children
}

/** An island that never finishes hydrating (it crashed) must not hold the page's buttons forever. */
const HYDRATION_WAIT_MS = 5000

/** Lets the browser do other work (input, painting) before going on: each island starts in a task of its own. */
const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve))

async function start() {
  // The stored session first: the header shows Dashboard to a signed-in member.
  session.restore()
  const navigation = documentNavigation(window.location.pathname)
  const hydrated: Promise<void>[] = []

  for (const element of document.querySelectorAll<HTMLElement>(`[${ISLAND_ATTRIBUTE}]`)) {
    const name = element.getAttribute(ISLAND_ATTRIBUTE)
    const island = islands.find((candidate) => candidate.name === name)
    if (!island) {
      console.error(`No island named ${name}: list it in islands.client.tsx`)
      continue
    }
    const props = JSON.parse(element.getAttribute(ISLAND_PROPS_ATTRIBUTE) ?? '{}') as object
    await nextTask()
    // As a transition, hydration works in short slices and leaves the main thread free in between
    // (a click meanwhile is handled once its island is hydrated).
    hydrated.push(
      new Promise((resolve) => {
        startTransition(() => {
          hydrateRoot(
            element,
            <NavigationProvider value={navigation}>
              <Hydrated onHydrated={resolve}>
                <island.Component {...props} />
              </Hydrated>
            </NavigationProvider>,
          )
        })
      }),
    )
  }

  // Once the islands are live (hydrated, their effects run: a form has taken in what was typed
  // before), the loader lets go and what was pressed meanwhile is pressed again.
  await Promise.race([
    Promise.all(hydrated),
    new Promise((resolve) => setTimeout(resolve, HYDRATION_WAIT_MS)),
  ])
  const pending = window.__islandsPending
  pending?.release()
  for (const target of pending?.targets ?? []) {
    if (target instanceof HTMLFormElement) target.requestSubmit()
    else target.click()
  }
}

void start()
