import { useQuery } from '@tanstack/react-query'
import { apiRequest } from '../../lib/api-client'
import { contract } from '../../lib/contract'

export const telegramKeys = { status: ['telegram-status'] as const }

export function useTelegramStatus() {
  return useQuery({
    queryKey: telegramKeys.status,
    queryFn: async () => {
      const result = await apiRequest('/telegram/status', { schema: contract('TelegramStatusSchema') })
      if (!result.success || !result.data)
        throw new Error(result.error ?? 'Could not load your Telegram status')
      return result.data
    },
    // While the member has a chat to join (or waits for the bot), look again so it shows up.
    refetchInterval: (query) => {
      const data = query.state.data
      if (!data?.configured || !data.connected) return false
      return data.chats.some((chat) => !chat.member) ? 5_000 : false
    },
  })
}

/** POST /telegram/connect: a one-time deep link to the bot for this member. */
export function connectTelegram() {
  return apiRequest('/telegram/connect', { method: 'POST', schema: contract('TelegramConnectSchema') })
}

export function disconnectTelegram() {
  return apiRequest('/telegram/disconnect', {
    method: 'POST',
    schema: contract('TelegramDisconnectResultSchema'),
  })
}

export function saveTelegramSettings(settings: { reminders: boolean }) {
  return apiRequest('/telegram/settings', {
    method: 'PUT',
    body: settings,
    schema: contract('TelegramStatusSchema'),
  })
}
