/** User-visible texts that more than one place needs, word for word. */
export const messages = {
  api: {
    requestFailed: 'API request failed',
    unknownError: 'Unknown error occurred',
  },
  pricing: {
    loading: 'Loading subscription plans...',
    failed: 'Failed to load subscription plans',
    signInToSubscribe: 'Please sign in to subscribe to a plan',
  },
  prices: {
    loading: 'Fetching prices...',
  },
} as const
