import type { ClientConfig } from '@edgeclub/shared'
import { apiRequest } from './api-client'

/**
 * GET /config: what the server tells the browser about its setup (never a secret). Its shape is only
 * a type here, so any page, a public one too, can ask without loading schemas; each reader copes
 * with a missing field (no key: no card form; no flag: no crypto).
 */

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
