import { paths, site } from '@edgeclub/shared'
import { useState } from 'react'
import { defineIsland } from '../lib/island'
import { type Navigation, useAppNavigation } from '../lib/navigation'
import { useSession } from '../lib/use-session'
import { buttonClasses } from './ui/button'
import { LogoMark, MenuIcon } from './ui/icons'

const links = [
  { to: paths.home, label: 'Home' },
  { to: paths.tips, label: 'Tips' },
  { to: paths.record, label: 'Record' },
  { to: paths.pricing, label: 'Pricing' },
  { to: paths.about, label: 'About' },
  { to: paths.contact, label: 'Contact' },
]

const navLinkClass = (isActive: boolean) =>
  `rounded-md px-3 py-2 text-sm font-medium transition-colors focus-visible:outline-2 focus-visible:outline-emerald-300 ${
    isActive ? 'text-emerald-300' : 'text-slate-300 hover:text-white'
  }`

/** A navigation entry, marked as the current page when it is the page on screen. */
function NavItem({ navigation, to, label }: { navigation: Navigation; to: string; label: string }) {
  const { Link } = navigation
  const current = navigation.pathname.length > 1 ? navigation.pathname.replace(/\/+$/, '') : '/'
  const isActive = current.toLowerCase() === to
  return (
    <Link to={to} aria-current={isActive ? 'page' : undefined} className={navLinkClass(isActive)}>
      {label}
    </Link>
  )
}

/**
 * The header: sticky; brand logo to /, Sign In (/login) and Sign Up (/register). An island: on a
 * prerendered page its menu button and the signed-in state come alive without the router.
 */
function SiteHeader() {
  const { isAuthenticated } = useSession()
  const navigation = useAppNavigation()
  const { Link, pathname } = navigation
  // The mobile menu belongs to the page it was opened on: it is closed after every navigation.
  const [openOn, setOpenOn] = useState<string | null>(null)
  const menuOpen = openOn === pathname

  return (
    <header className="sticky top-0 z-40 border-b border-slate-800 bg-slate-950/90 backdrop-blur">
      <div className="mx-auto flex h-16 max-w-6xl items-center justify-between gap-2 px-3 sm:gap-4 sm:px-6 lg:px-8">
        <Link
          to={paths.home}
          className="flex shrink-0 items-center gap-2 rounded-md text-lg font-extrabold text-white focus-visible:outline-2 focus-visible:outline-emerald-300"
          aria-label={`${site.name} home`}
        >
          <LogoMark />
          <span className="hidden min-[400px]:inline">{site.name}</span>
        </Link>

        <nav aria-label="Main" className="hidden items-center gap-1 md:flex">
          {links.map((item) => (
            <NavItem key={item.to} navigation={navigation} to={item.to} label={item.label} />
          ))}
        </nav>

        <div className="flex items-center gap-1 sm:gap-2">
          {isAuthenticated ? (
            <Link
              to={paths.dashboard}
              className={buttonClasses('primary', 'whitespace-nowrap px-3 py-2 sm:px-4')}
            >
              Dashboard
            </Link>
          ) : (
            <>
              <Link
                to={paths.login}
                className={buttonClasses('ghost', 'whitespace-nowrap px-2.5 py-2 sm:px-3')}
              >
                Sign In
              </Link>
              <Link
                to={paths.register}
                className={buttonClasses('primary', 'whitespace-nowrap px-3 py-2 sm:px-4')}
              >
                Sign Up
              </Link>
            </>
          )}
          <button
            type="button"
            className="rounded-md p-1.5 text-slate-300 hover:text-white focus-visible:outline-2 focus-visible:outline-emerald-300 md:hidden"
            aria-expanded={menuOpen}
            aria-controls="mobile-menu"
            onClick={() => setOpenOn(menuOpen ? null : pathname)}
          >
            <span className="sr-only">{menuOpen ? 'Close menu' : 'Open menu'}</span>
            <MenuIcon />
          </button>
        </div>
      </div>
      {menuOpen ? (
        <nav id="mobile-menu" aria-label="Mobile" className="border-t border-slate-800 px-4 py-3 md:hidden">
          <ul className="flex flex-col gap-1">
            {links.map((item) => (
              <li key={item.to}>
                <NavItem navigation={navigation} to={item.to} label={item.label} />
              </li>
            ))}
          </ul>
        </nav>
      ) : null}
    </header>
  )
}

export const siteHeaderIsland = defineIsland('site-header', SiteHeader)
