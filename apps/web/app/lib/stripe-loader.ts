import type { Stripe } from '@stripe/stripe-js'
import { loadStripe } from '@stripe/stripe-js/pure'
import { useEffect, useState } from 'react'
import { getClientConfig } from './client-config'

export type StripeLoad = { kind: 'ready'; stripe: Stripe } | { kind: 'missing' } | { kind: 'failed' }

function loadScript(src: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const script = document.createElement('script')
    script.src = src
    script.async = true
    script.onload = () => resolve()
    script.onerror = () => reject(new Error(`could not load ${src}`))
    document.head.appendChild(script)
  })
}

let loading: Promise<StripeLoad> | undefined

/**
 * Stripe.js with the publishable key from the server. Outside production the server may name a
 * stand-in script (the local emulator's); it defines window.Stripe before loadStripe looks for it.
 */
function getStripe(): Promise<StripeLoad> {
  loading ??= (async (): Promise<StripeLoad> => {
    try {
      const config = await getClientConfig()
      if (!config.stripePublishableKey) return { kind: 'missing' }
      if (config.stripeJsUrl && !('Stripe' in window)) await loadScript(config.stripeJsUrl)
      const stripe = await loadStripe(config.stripePublishableKey)
      return stripe ? { kind: 'ready', stripe } : { kind: 'failed' }
    } catch {
      loading = undefined
      return { kind: 'failed' }
    }
  })()
  return loading
}

/** Stripe.js for a card form, loaded once `enabled`; null while it loads. */
export function useStripeLoad(enabled = true): StripeLoad | null {
  const [stripe, setStripe] = useState<StripeLoad | null>(null)
  useEffect(() => {
    if (enabled) getStripe().then(setStripe)
  }, [enabled])
  return stripe
}

/** The name sent with a card: first and last name, else the email, else 'Customer'. */
export function billingName(user: { firstName?: string; lastName?: string; email?: string } | null): string {
  const name = `${user?.firstName ?? ''} ${user?.lastName ?? ''}`.trim()
  return name || user?.email || 'Customer'
}
