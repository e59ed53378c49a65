/** The part of React Router's build manifest (window.__reactRouterManifest) read here. */
interface RouteManifest {
  routes: Record<string, { module: string; imports?: string[] } | undefined>
}

/**
 * Fetches a route's module and every module it imports, all at once, before the router asks for
 * them: the router loads the route of the opening page only after its own start, and the browser
 * then finds the imports one level at a time. The addresses are the router's own, from its
 * manifest, which the page loads before any route. Nothing is run here: the router still imports
 * the route when it needs it, from the fetched copies.
 */
export function preloadRoute(id: string): void {
  const manifest = (window as { __reactRouterManifest?: RouteManifest }).__reactRouterManifest
  const route = manifest?.routes[id]
  if (!route) return
  for (const href of [route.module, ...(route.imports ?? [])]) {
    if (document.head.querySelector(`link[rel="modulepreload"][href="${href}"]`)) continue
    const link = document.createElement('link')
    link.rel = 'modulepreload'
    link.href = href
    document.head.append(link)
  }
}
