import { apiRequest } from './api-client'

/** GET /config: what the server tells the browser about its setup (never a secret). */
export interface ClientConfig {
  stripePublishableKey: string | null
  stripeJsUrl: string | null
  cryptoEnabled: boolean
  discordEnabled: boolean
}

let cached: Promise<ClientConfig> | undefined

export function getClientConfig(): Promise<ClientConfig> {
  cached ??= apiRequest<ClientConfig>('/config', { auth: false }).then((result) => {
    if (!result.success || !result.data) {
      cached = undefined
      throw new Error(result.error ?? 'Could not load the site configuration')
    }
    return result.data
  })
  return cached
}
