import { buildApp } from '../apps/api/src/app'
import type { Config } from '../apps/api/src/config'

/**
 * Places for `npm run demo`, as an owner would set them up in the console: the emulator's three
 * Telegram chats (NFL Picks gets only NFL signals) and the Discord server's VIP role; Weekly and
 * Monthly open the member role, EdgeClub Signals and NFL Picks; Yearly and Lifetime open everything.
 * Runs once, on a database without places, after the signal history was seeded (whose deliveries
 * are done by then, so three weeks of history are not posted into the chats).
 */
export async function seedDemoPlaces(
  config: Config,
  world: { chats: { id: number; title: string }[]; vipRoleId: string },
): Promise<boolean> {
  const app = await buildApp({ ...config, webRoot: undefined })
  try {
    const { places, plansAdmin, jobs } = app.services
    if ((await places.telegramChats()).length > 0) return false
    for (let waited = 0; waited < 60 && (await jobs.pending('signals.telegram')) > 0; waited++)
      await new Promise((resolve) => setTimeout(resolve, 500))
    const chat = (title: string) => {
      const found = world.chats.find((candidate) => candidate.title === title)
      if (!found) throw new Error(`the emulator has no chat ${title}`)
      return String(found.id)
    }
    const signalsChat = await places.addPlace({
      kind: 'telegram_chat',
      chat: chat('EdgeClub Signals'),
      signalCategories: 'all',
    })
    await places.addPlace({ kind: 'telegram_chat', chat: chat('EdgeClub VIP'), signalCategories: 'all' })
    const nfl = await places.addPlace({
      kind: 'telegram_chat',
      chat: chat('NFL Picks'),
      signalCategories: ['NFL'],
    })
    await places.addPlace({ kind: 'discord_role', roleId: world.vipRoleId })
    const memberRole = (await places.overview()).places.find((place) => place.builtIn)
    const { items } = await plansAdmin.list({
      page: 1,
      limit: 100,
      sortBy: 'sortOrder',
      sortOrder: 'asc',
      includeArchived: false,
    })
    for (const plan of items.filter((item) => item.slug === 'weekly' || item.slug === 'monthly'))
      await plansAdmin.update(plan.id, {
        places: {
          discordRoles: memberRole ? [memberRole.id] : 'all',
          telegramChats: [signalsChat.id, nfl.id],
          signalCategories: 'all',
        },
      })
    return true
  } finally {
    await app.close()
  }
}
