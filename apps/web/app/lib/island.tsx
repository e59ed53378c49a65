import { type ComponentType, createContext, type ReactNode, useContext } from 'react'
import { documentNavigation, NavigationProvider } from './navigation'

/**
 * Islands: the interactive parts of a prerendered public page.
 *
 * A public page route that exports `handle = islandsPage` is prerendered as plain HTML without
 * React Router's scripts. Only its islands (the header's menu, the price card, the plans, the
 * contact form) come alive: one small script hydrates each `[data-island]` element on its own,
 * with React but without the router (app/islands.client.tsx). The rest of the page is HTML and
 * CSS; its links work before and without any script.
 *
 * In the app (a page reached by client-side navigation, or any page outside the prerendered set),
 * an island is an ordinary component inside the router.
 *
 * An island must render the same markup on the server and in the browser from its props alone:
 * props are JSON, it renders no `useId` ids (an island's position in the tree differs between the
 * page and its own root) and it reaches links and navigation through `useAppNavigation`. Its HTML
 * is usable before its script arrives: an island with form fields takes in what they already hold
 * when it comes alive (see the contact form); buttons pressed meanwhile are pressed again then.
 */

export interface IslandDefinition<P extends object> {
  name: string
  Component: ComponentType<P>
}

export function defineIsland<P extends object>(
  name: string,
  Component: ComponentType<P>,
): IslandDefinition<P> {
  return { name, Component }
}

/** Set by the root layout while it prerenders an islands page: the page's path. */
const IslandsPageContext = createContext<string | null>(null)

export function IslandsPageProvider({ pathname, children }: { pathname: string; children: ReactNode }) {
  return <IslandsPageContext.Provider value={pathname}>{children}</IslandsPageContext.Provider>
}

/** The route handle of a page prerendered with islands. */
export const islandsPage = { islands: true } as const

export function isIslandsHandle(handle: unknown): boolean {
  return Boolean(handle && typeof handle === 'object' && (handle as { islands?: unknown }).islands === true)
}

/** The element an island lives in; `display: contents`, so it adds no box to the layout. */
export const ISLAND_ATTRIBUTE = 'data-island'
export const ISLAND_PROPS_ATTRIBUTE = 'data-island-props'

export function Island<P extends object>({ of, ...props }: { of: IslandDefinition<P> } & P) {
  const islandsPagePath = useContext(IslandsPageContext)
  const { Component } = of
  const content = <Component {...(props as unknown as P)} />
  const json = JSON.stringify(props)
  return (
    <div
      className="contents"
      {...{ [ISLAND_ATTRIBUTE]: of.name, [ISLAND_PROPS_ATTRIBUTE]: json === '{}' ? undefined : json }}
    >
      {islandsPagePath === null ? (
        content
      ) : (
        // Rendered as it will be hydrated: without the router.
        <NavigationProvider value={documentNavigation(islandsPagePath)}>{content}</NavigationProvider>
      )}
    </div>
  )
}
