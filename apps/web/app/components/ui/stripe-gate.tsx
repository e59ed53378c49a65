import { checkoutMessages } from '@edgeclub/shared'
import { Elements } from '@stripe/react-stripe-js'
import type { ReactNode } from 'react'
import type { StripeLoad } from '../../lib/stripe-loader'
import { Alert } from './field'

/**
 * A card form's surroundings: 'loading' while Stripe.js loads, 'Stripe Configuration Missing' without
 * keys, 'Stripe has not loaded properly...' when it failed, else the form inside Elements.
 */
export function StripeGate({
  stripe,
  className,
  children,
}: {
  stripe: StripeLoad | null
  /** Around the loading and error states (the form keeps its own spacing). */
  className?: string
  children: ReactNode
}) {
  if (stripe?.kind === 'ready') return <Elements stripe={stripe.stripe}>{children}</Elements>
  return (
    <div className={className}>
      {stripe === null ? (
        <p role="status" className="text-sm text-slate-300">
          Loading secure card form...
        </p>
      ) : stripe.kind === 'missing' ? (
        <Alert tone="error">
          <strong className="block">{checkoutMessages.stripeMissing}</strong>
          Card payments are not set up on this server yet. Please contact support.
        </Alert>
      ) : (
        <Alert tone="error">{checkoutMessages.stripeNotLoaded}</Alert>
      )}
    </div>
  )
}
