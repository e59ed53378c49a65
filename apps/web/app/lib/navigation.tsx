import {
  type AnchorHTMLAttributes,
  type ComponentType,
  createContext,
  type ReactNode,
  useContext,
} from 'react'

/**
 * How a component links and moves the visitor on, without importing React Router itself.
 *
 * Inside the app (the member area, the sign-in screens, any page reached by client-side navigation)
 * the site layout provides React Router's Link and navigate. On a prerendered public page only small
 * islands are hydrated, without a router (see island.tsx): there links are plain anchors and
 * navigating loads the next document, which is prerendered and quick.
 */

export interface AppLinkProps extends Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> {
  to: string
}

export interface Navigation {
  /** The path of the page on screen. */
  pathname: string
  Link: ComponentType<AppLinkProps>
  /** Goes to `to`; `state` arrives as React Router's location state on the next screen. */
  navigate: (to: string, options?: { state?: unknown }) => void
}

const NavigationContext = createContext<Navigation | null>(null)

export function NavigationProvider({ value, children }: { value: Navigation; children: ReactNode }) {
  return <NavigationContext.Provider value={value}>{children}</NavigationContext.Provider>
}

export function useAppNavigation(): Navigation {
  const navigation = useContext(NavigationContext)
  if (!navigation)
    throw new Error('useAppNavigation needs a NavigationProvider (the site layout or an island)')
  return navigation
}

function DocumentLink({ to, ...props }: AppLinkProps) {
  return <a href={to} {...props} />
}

/**
 * The location state of a document navigation, in the shape React Router reads from
 * `history.state` when the next page starts (`usr` is the state, `key` and `idx` its bookkeeping).
 */
export function routerHistoryState(
  state: unknown,
  previous: unknown,
): { usr: unknown; key: string; idx: number } {
  const index = (previous as { idx?: unknown } | null)?.idx
  return {
    usr: state,
    key: Math.random().toString(36).slice(2, 10),
    idx: typeof index === 'number' ? index + 1 : 1,
  }
}

/** Navigation on a page without a router: anchors, and document loads. */
export function documentNavigation(pathname: string): Navigation {
  return {
    pathname,
    Link: DocumentLink,
    navigate(to, options) {
      if (options?.state === undefined) {
        window.location.assign(to)
        return
      }
      // The state must reach the next page, which reads it from its history entry: add the entry
      // with its state, then load it (a reload keeps the entry's state).
      window.history.pushState(routerHistoryState(options.state, window.history.state), '', to)
      window.location.reload()
    },
  }
}
