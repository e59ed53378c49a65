import type { DiscordCallback } from '@edgeclub/shared'
import { useQuery } from '@tanstack/react-query'
import { apiRequest } from '../../lib/api-client'
import { contract } from '../../lib/contract'

export const communityKeys = { status: ['discord-status'] as const }

export function useDiscordStatus() {
  return useQuery({
    queryKey: communityKeys.status,
    queryFn: async () => {
      const result = await apiRequest('/discord/status', { schema: contract('DiscordStatusSchema') })
      if (!result.success || !result.data)
        throw new Error(result.error ?? 'Could not load your Discord status')
      return result.data
    },
    // While the member is joining, look again so the role shows up without a reload.
    refetchInterval: (query) => (query.state.data?.state === 'invited' ? 5_000 : false),
  })
}

/** POST /discord/create-invite, with no body: the server knows who is asking. */
export function createInvite() {
  return apiRequest('/discord/create-invite', { method: 'POST', schema: contract('DiscordInviteSchema') })
}

/** POST /discord/connect: Discord's consent page for this member, with a fresh single-use state. */
export function startDiscordConnect() {
  return apiRequest('/discord/connect', { method: 'POST', schema: contract('DiscordConnectStartSchema') })
}

/** POST /discord/connect/callback: what Discord put on the redirect URI, for the server to finish. */
export function completeDiscordConnect(callback: DiscordCallback) {
  return apiRequest('/discord/connect/callback', {
    method: 'POST',
    body: callback,
    schema: contract('DiscordConnectResultSchema'),
  })
}

export function disconnectDiscord() {
  return apiRequest('/discord/disconnect', {
    method: 'POST',
    schema: contract('DiscordDisconnectResultSchema'),
  })
}

/** What the Connect Discord return page hands the Community tab (navigation state). */
export interface DiscordConnectNotice {
  tone: 'success' | 'error'
  text: string
}

export function discordNoticeOf(state: unknown): DiscordConnectNotice | null {
  if (!state || typeof state !== 'object' || !('discordConnect' in state)) return null
  const notice = (state as { discordConnect: unknown }).discordConnect as Partial<DiscordConnectNotice> | null
  if (!notice || typeof notice.text !== 'string') return null
  return { tone: notice.tone === 'success' ? 'success' : 'error', text: notice.text }
}
