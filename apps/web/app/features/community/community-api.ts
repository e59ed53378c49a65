import { DiscordInviteSchema, DiscordStatusSchema } from '@edgeclub/shared'
import { useQuery } from '@tanstack/react-query'
import { apiRequest } from '../../lib/api-client'

export const communityKeys = { status: ['discord-status'] as const }

export function useDiscordStatus() {
  return useQuery({
    queryKey: communityKeys.status,
    queryFn: async () => {
      const result = await apiRequest('/discord/status', { schema: DiscordStatusSchema })
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
  return apiRequest('/discord/create-invite', { method: 'POST', schema: DiscordInviteSchema })
}
