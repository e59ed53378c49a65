import { paths, site } from '@edgeclub/shared'
import { QueryClientProvider } from '@tanstack/react-query'
import { Link, useSearchParams } from 'react-router'
import { ButtonLink } from '../components/ui/button'
import { LogoMark } from '../components/ui/icons'
import { AuditSection } from '../features/admin/audit-section'
import { BillingSettingsSection } from '../features/admin/billing-settings-section'
import { BroadcastSection } from '../features/admin/broadcast-section'
import { ClaimsSection } from '../features/admin/claims-section'
import { PaymentsSection, SubscriptionsSection } from '../features/admin/lists-section'
import { OverviewSection } from '../features/admin/overview-section'
import { PlacesSection } from '../features/admin/places-section'
import { PlansSection } from '../features/admin/plans-section'
import { PromoCodesSection } from '../features/admin/promo-codes-section'
import { UserDetailSection } from '../features/admin/user-detail-section'
import { UsersSection } from '../features/admin/users-section'
import { SignalsSection } from '../features/signals/staff-signals-section'
import { queryClient } from '../lib/query-client'
import { seo } from '../lib/seo'
import { SessionGuard } from '../lib/session-guard'
import { useSession } from '../lib/use-session'

export function meta() {
  return [...seo('Admin console', 'Run EdgeClub.'), { name: 'robots', content: 'noindex' }]
}

const SECTIONS = [
  { id: 'overview', label: 'Overview' },
  { id: 'signals', label: 'Signals' },
  { id: 'users', label: 'Members' },
  { id: 'subscriptions', label: 'Subscriptions' },
  { id: 'payments', label: 'Payments' },
  { id: 'plans', label: 'Plans' },
  { id: 'promo', label: 'Promo codes' },
  { id: 'billing', label: 'Billing settings' },
  { id: 'places', label: 'Places' },
  { id: 'broadcast', label: 'Broadcast' },
  { id: 'claims', label: 'Claims' },
  { id: 'audit', label: 'Audit log' },
] as const
type Section = (typeof SECTIONS)[number]['id']

/** Analysts publish and settle signals, and see nothing else of the console. */
const ANALYST_SECTIONS: readonly Section[] = ['signals']

function sectionsFor(role: string | undefined) {
  return role === 'analyst' ? SECTIONS.filter((item) => ANALYST_SECTIONS.includes(item.id)) : SECTIONS
}

/**
 * The admin console: admins see all of it, analysts only the Signals section; the server enforces
 * the role on every call as well.
 */
export default function Admin() {
  return (
    <SessionGuard>
      <AdminsOnly />
    </SessionGuard>
  )
}

function AdminsOnly() {
  const { user } = useSession()
  if (user?.role !== 'admin' && user?.role !== 'analyst') {
    return (
      <main className="flex min-h-screen flex-col items-center justify-center gap-4 px-4 text-center">
        <h1 className="text-2xl font-bold text-white">This area is for administrators only</h1>
        <p className="text-slate-300">Your account does not have access to the admin console.</p>
        <ButtonLink to={paths.dashboard}>Back to your dashboard</ButtonLink>
      </main>
    )
  }
  return (
    <QueryClientProvider client={queryClient}>
      <Console sections={sectionsFor(user.role)} />
    </QueryClientProvider>
  )
}

function Console({ sections }: { sections: readonly (typeof SECTIONS)[number][] }) {
  const [params] = useSearchParams()
  const first = sections[0]?.id ?? 'overview'
  const section = (sections.find((item) => item.id === params.get('section'))?.id ?? first) as Section
  const userId = params.get('user')
  const label = sections.find((item) => item.id === section)?.label ?? 'Overview'

  return (
    <div className="min-h-screen">
      <div className="border-b border-slate-800 bg-slate-950">
        <div className="mx-auto flex max-w-7xl flex-wrap items-center justify-between gap-3 px-4 py-3">
          <Link to={paths.home} className="flex items-center gap-2 font-extrabold text-white">
            <LogoMark />
            {site.name} admin
          </Link>
          <Link to={paths.dashboard} className="text-sm font-semibold text-emerald-300 hover:underline">
            Member dashboard
          </Link>
        </div>
        <nav aria-label="Admin sections" className="mx-auto max-w-7xl overflow-x-auto px-4">
          <ul className="flex gap-1 pb-2">
            {sections.map((item) => (
              <li key={item.id}>
                <Link
                  to={`?section=${item.id}`}
                  aria-current={item.id === section ? 'page' : undefined}
                  className={`block whitespace-nowrap rounded-lg px-3 py-2 text-sm font-medium ${
                    item.id === section
                      ? 'bg-emerald-400/15 text-emerald-200'
                      : 'text-slate-300 hover:bg-slate-900 hover:text-white'
                  }`}
                >
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      </div>
      <main className="mx-auto max-w-7xl space-y-6 px-4 py-6">
        <h1 className="text-2xl font-bold text-white">{label}</h1>
        {section === 'overview' ? <OverviewSection /> : null}
        {section === 'signals' ? <SignalsSection /> : null}
        {section === 'users' && userId ? <UserDetailSection key={userId} userId={userId} /> : null}
        {section === 'users' && !userId ? <UsersSection /> : null}
        {section === 'subscriptions' ? <SubscriptionsSection /> : null}
        {section === 'payments' ? <PaymentsSection /> : null}
        {section === 'plans' ? <PlansSection /> : null}
        {section === 'promo' ? <PromoCodesSection /> : null}
        {section === 'billing' ? <BillingSettingsSection /> : null}
        {section === 'places' ? <PlacesSection /> : null}
        {section === 'broadcast' ? <BroadcastSection /> : null}
        {section === 'claims' ? <ClaimsSection /> : null}
        {section === 'audit' ? <AuditSection /> : null}
      </main>
    </div>
  )
}
