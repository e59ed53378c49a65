import {
  categoryGranted,
  type SignalView,
  type SignedHead,
  signalAnnouncement,
  witnessText,
} from '@edgeclub/shared'
import type { DiscordClient } from '../../integrations/discord/discord-client'
import type { Clock } from '../../lib/clock'
import type { MailQueue } from '../../mail/mail-queue'
import { signalEmail } from '../../mail/member-news-emails'
import { type Jobs, type QueuePolicies, type QueuePolicy, SWEEP_POLICY } from '../../queue/job-runner'
import { toSignalView } from './signal-views'
import type { SignalsRepository } from './signals-repository'
import type { SignalsService } from './signals-service'

declare module '../../queue/job-runner' {
  interface JobData {
    /** One ledger entry posted to the members' signals channel in Discord. */
    'signals.discord': { seq: number }
    /** One publication emailed to members with access who asked for updates (one mail job each). */
    'signals.email': { seq: number }
    /** One ledger entry posted to the Telegram chats whose categories include the signal's. */
    'signals.telegram': { seq: number }
    'signals.settle-prices': Record<string, never>
  }
}

const DELIVERY: QueuePolicy = {
  retryLimit: 10,
  retryDelay: 5,
  batchSize: 5,
  concurrency: 1,
  expireInSeconds: 300,
}

export const SIGNALS_QUEUES: QueuePolicies<
  'signals.discord' | 'signals.email' | 'signals.telegram' | 'signals.settle-prices'
> = {
  'signals.discord': DELIVERY,
  'signals.email': DELIVERY,
  'signals.telegram': DELIVERY,
  'signals.settle-prices': { ...SWEEP_POLICY, retryLimit: 0 },
}

/** Discord's limit on a message's length. */
const DISCORD_LIMIT = 2000

/**
 * Each delivery of a ledger entry is its own keyed job (queued with the entry, signals-service.ts), so
 * a Discord outage never mails anyone twice and a mail outage never posts twice.
 */
export async function registerSignalsJobs(
  jobs: Pick<Jobs, 'work' | 'schedule'>,
  deps: {
    repo: Pick<SignalsRepository, 'entry' | 'findById' | 'listSubscribersWithAccess' | 'transaction'>
    /** The signed heads of the record at these sizes: each delivery carries its entry's. */
    headsAt: (sizes: number[]) => Promise<Map<number, SignedHead>>
    signals: Pick<SignalsService, 'settleFromPrices'>
    mail: Pick<MailQueue, 'enqueueBulk'>
    discord: Pick<DiscordClient, 'sendMessage'> | undefined
    channelId: string | undefined
    /** Queues the post to each matching Telegram chat (keyed; sent within Telegram's limits). */
    telegram:
      | {
          postToChats(input: {
            key: string
            category: string
            headline: string
            body: string
          }): Promise<number>
        }
      | undefined
    /** The signal categories each member receives (absent: no access). */
    categoriesFor: (userIds: readonly string[]) => Promise<Map<string, 'all' | string[]>>
    clock: Clock
    appOrigin: string
  },
): Promise<void> {
  /** The entry and its signal as members with access see it, or undefined when either is gone. */
  const load = async (
    seq: number,
  ): Promise<
    { type: 'publish' | 'settle' | 'void'; signal: SignalView; head: SignedHead | undefined } | undefined
  > => {
    const entry = await deps.repo.entry(seq)
    const row = entry ? await deps.repo.findById(entry.signal_id) : undefined
    const head = (await deps.headsAt([seq])).get(seq)
    return entry && row ? { type: entry.type, signal: toSignalView(row, 'full'), head } : undefined
  }
  /** The witness line of a chat message: the commitment and the signed head of this entry. */
  const chatWitness = (loaded: { signal: SignalView; head: SignedHead | undefined }) =>
    loaded.head ? `\n${witnessText(loaded.signal.commitment, loaded.head, 'chat')}` : ''

  await jobs.work('signals.discord', async ({ seq }) => {
    const { discord, channelId } = deps
    const loaded = discord && channelId ? await load(seq) : undefined
    if (!discord || !channelId || !loaded) return
    const { headline, details, analysis } = signalAnnouncement(loaded.type, loaded.signal, 'discord')
    const text = [`**${headline}**`, details, analysis ? `\n${analysis}` : ''].filter(Boolean).join('\n')
    // The witness line goes last and is never cut: a long analysis is shortened instead.
    const witness = chatWitness(loaded)
    const room = DISCORD_LIMIT - witness.length
    await discord.sendMessage(
      channelId,
      `${text.length > room ? `${text.slice(0, room - 1)}…` : text}${witness}`,
    )
  })

  // The same words as Discord's (signalAnnouncement), as Telegram text with a bold headline.
  await jobs.work('signals.telegram', async ({ seq }) => {
    const loaded = deps.telegram ? await load(seq) : undefined
    if (!deps.telegram || !loaded) return
    const { headline, details, analysis } = signalAnnouncement(loaded.type, loaded.signal, 'discord')
    await deps.telegram.postToChats({
      key: `signal:${seq}`,
      category: loaded.signal.category,
      headline,
      body: [details, analysis ? `\n${analysis}` : '', chatWitness(loaded)].filter(Boolean).join('\n'),
    })
  })

  await jobs.work('signals.email', async ({ seq }) => {
    const loaded = await load(seq)
    if (loaded?.type !== 'publish') return
    const { signal } = loaded
    const { subject, headline, details } = signalAnnouncement('publish', signal, 'email')
    const witness = loaded.head ? witnessText(signal.commitment, loaded.head, 'email') : undefined
    // Only members whose plans grant the signal's category (read before the transaction below, which
    // holds its connection: the embedded database has only one).
    const subscribers = await deps.repo.listSubscribersWithAccess(deps.clock.now())
    const granted = await deps.categoriesFor(subscribers.map((recipient) => recipient.id))
    const recipients = subscribers.filter((recipient) => {
      const categories = granted.get(recipient.id)
      return categories !== undefined && categoryGranted(categories, signal.category)
    })
    // One mail job per member, all queued in one transaction and keyed, so nobody is mailed twice.
    await deps.repo.transaction(async (trx) => {
      await deps.mail.enqueueBulk(
        recipients.map((recipient) => ({
          key: `signal-mail:${signal.id}:${recipient.id}`,
          message: signalEmail(
            recipient,
            { kind: signal.kind, subject, headline, details, witness },
            deps.appOrigin,
          ),
        })),
        { trx },
      )
    })
  })

  // Every minute: open trading signals on the price feed's instruments settle at target, stop or expiry.
  await jobs.work('signals.settle-prices', async () => {
    await deps.signals.settleFromPrices()
  })
  await jobs.schedule('signals.settle-prices', '* * * * *')
}
