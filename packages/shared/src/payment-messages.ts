/** What the checkout and crypto payment screens say (payments.ts has the schemas). Without zod: the member's first screens show them. */

export const checkoutMessages = {
  planNotFound: 'Selected plan not found',
  intentFailed: 'Failed to create payment intent',
  unexpected: 'An unexpected error occurred',
  stripeMissing: 'Stripe Configuration Missing',
  invalidSession: 'Invalid payment session',
  selectPlan: 'Please select a plan to continue',
  signInToPay: 'Please sign in to complete your payment',
  stripeNotLoaded: 'Stripe has not loaded properly. Please refresh the page.',
  /** The same words the tip form uses. */
  notSuccessful: 'Payment was not successful',
  paymentsUnavailable: 'Card payments are not available right now. Please try again later.',
} as const

/** Crypto through BTCPay Server: the texts members see on both sides. */
export const cryptoMessages = {
  payWithCrypto: 'Pay with crypto',
  unavailable: 'Crypto payments are not available right now. Please pay by card or try again later.',
  startFailed: 'Could not start the crypto payment',
  alreadyPaid: 'This plan is already paid for.',
  awaiting: 'Waiting for your crypto payment.',
  expired: 'The crypto invoice expired before it was paid in full.',
  expiredUnderpaid: 'The crypto invoice expired underpaid; contact support about the amount you sent.',
  invalid: 'The crypto payment was marked invalid.',
  underpaid: 'Partly paid: send the rest before the invoice expires.',
  processing: 'Payment received; waiting for network confirmations.',
  replaced: 'Replaced by a new crypto invoice.',
  paidWithCrypto: 'Paid with crypto instead.',
  paidByCard: 'Paid by card instead.',
} as const
