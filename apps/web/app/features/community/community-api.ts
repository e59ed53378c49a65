import { useQuery } from '@tanstack/react-query'
import { apiRequest } from '../../lib/api-client'

/** SPEC §3 community invite. */
export interface Invite {
  inviteUrl: string
  targetUsername: string
  expiresAt: string
  maxUses: number
}

export interface DiscordStatus {
  configured: boolean
  state: 'unlinked' | 'invited' | 'joined' | 'removed' | 'kicked' | 'banned'
  roleGranted: boolean
  discordUsername: string
  invite: Invite | null
}

export const communityKeys = { status: ['discord-status'] as const }

export function useDiscordStatus() {
  return useQuery({
    queryKey: communityKeys.status,
    queryFn: async () => {
      const result = await apiRequest<DiscordStatus>('/discord/status')
      if (!result.success || !result.data)
        throw new Error(result.error ?? 'Could not load your Discord status')
      return result.data
    },
    // While the member is joining, look again so the role shows up without a reload.
    refetchInterval: (query) => (query.state.data?.state === 'invited' ? 5_000 : false),
  })
}

/** SPEC §7: POST /discord/create-invite with no body. */
export function createInvite() {
  return apiRequest<Invite>('/discord/create-invite', { method: 'POST' })
}
