import { describe, expect, it } from 'vitest'
import { isAppPath, showsFooter, showsHeader } from './paths'

describe('layout rules', () => {
  it('LAYOUT-03 shows the header on every route except /dashboard', () => {
    for (const path of [
      '/',
      '/tips',
      '/pricing',
      '/about',
      '/contact',
      '/login',
      '/register',
      '/forgot-password',
      '/payment',
      '/nowhere',
    ]) {
      expect(showsHeader(path), path).toBe(true)
    }
    expect(showsHeader('/dashboard')).toBe(false)
  })

  it('LAYOUT-09 hides the footer on login, register, forgot-password, payment and dashboard', () => {
    for (const path of ['/login', '/register', '/forgot-password', '/payment', '/dashboard', '/login/']) {
      expect(showsFooter(path), path).toBe(false)
    }
  })

  it('LAYOUT-10 shows the footer on the marketing pages and unknown paths', () => {
    for (const path of ['/', '/tips', '/pricing', '/about', '/contact', '/nowhere']) {
      expect(showsFooter(path), path).toBe(true)
    }
  })

  it('LAYOUT-11 tells the app routes from unknown paths', () => {
    expect(isAppPath('/pricing')).toBe(true)
    expect(isAppPath('/record')).toBe(true)
    expect(isAppPath('/dashboard/settings')).toBe(true)
    expect(isAppPath('/pricingx')).toBe(false)
    expect(isAppPath('/nope')).toBe(false)
  })
})
