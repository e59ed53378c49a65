import { paths, site } from '@edgeclub/shared'
import { useEffect, useState } from 'react'
import { Link, NavLink, useLocation } from 'react-router'
import { useSession } from '../lib/use-session'
import { buttonClasses } from './ui/button'
import { LogoMark, MenuIcon } from './ui/icons'

const navigation = [
  { to: paths.home, label: 'Home' },
  { to: paths.tips, label: 'Tips' },
  { to: paths.record, label: 'Record' },
  { to: paths.pricing, label: 'Pricing' },
  { to: paths.about, label: 'About' },
  { to: paths.contact, label: 'Contact' },
]

const navLinkClass = ({ isActive }: { isActive: boolean }) =>
  `rounded-md px-3 py-2 text-sm font-medium transition-colors focus-visible:outline-2 focus-visible:outline-emerald-300 ${
    isActive ? 'text-emerald-300' : 'text-slate-300 hover:text-white'
  }`

/** The header: sticky; brand logo to /, Sign In (/login) and Sign Up (/register). */
export function SiteHeader() {
  const { isAuthenticated } = useSession()
  const [menuOpen, setMenuOpen] = useState(false)
  const { pathname } = useLocation()

  // biome-ignore lint/correctness/useExhaustiveDependencies: close the mobile menu after every navigation
  useEffect(() => setMenuOpen(false), [pathname])

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
          {navigation.map((item) => (
            <NavLink key={item.to} to={item.to} end className={navLinkClass}>
              {item.label}
            </NavLink>
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
            onClick={() => setMenuOpen((open) => !open)}
          >
            <span className="sr-only">{menuOpen ? 'Close menu' : 'Open menu'}</span>
            <MenuIcon />
          </button>
        </div>
      </div>
      {menuOpen ? (
        <nav id="mobile-menu" aria-label="Mobile" className="border-t border-slate-800 px-4 py-3 md:hidden">
          <ul className="flex flex-col gap-1">
            {navigation.map((item) => (
              <li key={item.to}>
                <NavLink to={item.to} end className={navLinkClass}>
                  {item.label}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
      ) : null}
    </header>
  )
}
