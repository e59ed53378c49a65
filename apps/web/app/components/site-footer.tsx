import { paths, site } from '@edgeclub/shared'
import { Link } from 'react-router'

const links = [
  { to: paths.tips, label: 'Tips' },
  { to: paths.pricing, label: 'Pricing' },
  { to: paths.about, label: 'About' },
  { to: paths.contact, label: 'Contact' },
]

/** The footer: copyright 2024 and a tagline. */
export function SiteFooter() {
  return (
    <footer className="border-t border-slate-800 bg-slate-950">
      <div className="mx-auto flex max-w-6xl flex-col gap-6 px-4 py-10 sm:px-6 md:flex-row md:items-center md:justify-between lg:px-8">
        <div>
          <p className="text-lg font-bold text-white">{site.name}</p>
          <p className="mt-1 max-w-md text-sm text-slate-400">{site.tagline}</p>
        </div>
        <nav aria-label="Footer">
          <ul className="flex flex-wrap gap-x-6 gap-y-2 text-sm">
            {links.map((link) => (
              <li key={link.to}>
                <Link to={link.to} className="text-slate-300 hover:text-emerald-300">
                  {link.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      </div>
      <div className="border-t border-slate-900 py-4 text-center text-xs text-slate-400">
        © {site.copyrightYear} {site.name}. All rights reserved. Bet and trade responsibly; past results do
        not guarantee future returns.
      </div>
    </footer>
  )
}
