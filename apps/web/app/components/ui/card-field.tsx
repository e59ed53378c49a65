import { CardElement } from '@stripe/react-stripe-js'
import type { StripeCardElementChangeEvent } from '@stripe/stripe-js'

/** Stripe's card element in EdgeClub's look; reports its own validation message. */
export function CardField({ onChange }: { onChange: (event: StripeCardElementChangeEvent) => void }) {
  return (
    <div className="rounded-lg border border-slate-700 bg-slate-950 px-3 py-3 focus-within:border-emerald-400">
      <CardElement
        onChange={onChange}
        options={{
          hidePostalCode: false,
          style: {
            base: { color: '#f1f5f9', fontSize: '16px', '::placeholder': { color: '#64748b' } },
            invalid: { color: '#fda4af' },
          },
        }}
      />
    </div>
  )
}
