import { type ContextType, createElement, useContext } from 'react'
import { renderToString } from 'react-dom/server'
import { UNSAFE_FrameworkContext as FrameworkContext } from 'react-router'
import { describe, expect, expectTypeOf, it } from 'vitest'

/**
 * What the islands build (root.tsx's useIslandsPrerender, decision 016) needs from React Router, which
 * exports it only as UNSAFE_: its framework context, which says whether the document being rendered
 * is the SPA fallback page. Should an upgrade drop or rename it, this fails (and `tsc` with it) before
 * any page is built.
 */
describe("React Router's framework context, as the islands build reads it", () => {
  it('is exported as a React context whose value says whether this is the SPA fallback page', () => {
    expect(FrameworkContext).toBeDefined()
    expect((FrameworkContext as unknown as { $$typeof: symbol }).$$typeof).toBe(Symbol.for('react.context'))
    expectTypeOf<NonNullable<ContextType<typeof FrameworkContext>>['isSpaMode']>().toEqualTypeOf<boolean>()
  })

  it('is empty outside the framework, which the islands code reads as "not an islands page"', () => {
    const Probe = () => {
      const spaFallback = useContext(FrameworkContext)?.isSpaMode ?? true
      return createElement('output', null, String(spaFallback))
    }
    expect(renderToString(createElement(Probe))).toContain('true')
    const framework = { isSpaMode: false } as NonNullable<ContextType<typeof FrameworkContext>>
    expect(
      renderToString(createElement(FrameworkContext.Provider, { value: framework }, createElement(Probe))),
    ).toContain('false')
  })
})
