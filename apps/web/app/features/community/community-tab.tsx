import { useDiscordStatus } from './community-api'
import { DiscordTab } from './discord-tab'
import { useTelegramStatus } from './telegram-api'
import { TelegramCard } from './telegram-card'

/**
 * The Community tab: the club's Discord server and its Telegram chats. A club on Telegram only shows
 * Telegram; otherwise Discord comes first, as members know it from the Discord Access screen.
 */
export function CommunityTab() {
  const discord = useDiscordStatus()
  const telegram = useTelegramStatus()
  const telegramOnly = telegram.data?.configured === true && discord.data?.configured === false
  return (
    <div className="max-w-2xl space-y-6">
      {telegramOnly ? null : <DiscordTab />}
      <TelegramCard />
    </div>
  )
}
