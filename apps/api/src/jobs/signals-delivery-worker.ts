import { type PickContent, site, type TradeSignalContent } from '@edgeclub/shared'
import type { DiscordClient } from '../integrations/discord/discord-client'
import { renderEmail } from '../integrations/mail/templates'
import type { Clock } from '../lib/clock'
import type { SignalsRepository } from '../modules/signals/signals-repository'
import type { Jobs } from './job-runner'

const DISCORD_LIMIT = 2000

const units = (value: number) => `${value > 0 ? '+' : ''}${value}u`
type Style = 'discord' | 'email'
/** Discord shows a timestamp in each reader's own time zone; an email says UTC. */
const when = (iso: string, style: Style) =>
  style === 'discord' ? `<t:${Math.floor(Date.parse(iso) / 1000)}:f>` : new Date(iso).toUTCString()

function headline(content: Record<string, unknown>): string {
  if (content.kind === 'pick') {
    const pick = content as unknown as PickContent
    return `${pick.sport}${pick.league ? ` · ${pick.league}` : ''} · ${pick.event}`
  }
  const signal = content as unknown as TradeSignalContent
  return `${signal.instrument} ${signal.direction}`
}

function details(content: Record<string, unknown>, style: Style): string {
  if (content.kind === 'pick') {
    const pick = content as unknown as PickContent
    return `${pick.selection} (${pick.market}) @ ${pick.odds} · stake ${pick.stake}u · starts ${when(pick.startsAt, style)}`
  }
  const signal = content as unknown as TradeSignalContent
  return `entry ${signal.entry} · target ${signal.target} · stop ${signal.stop} · stake ${signal.stake}u · expires ${when(signal.expiresAt, style)}`
}

/**
 * Delivers one ledger entry. A publication is posted in full to the members' signals channel and
 * emailed to members with access who asked for updates (one job per member, all queued in one
 * transaction and keyed, so nobody is mailed twice); a settlement or void is posted as a result.
 */
export function signalsDeliveryWorker(deps: {
  repo: SignalsRepository
  jobs: Jobs
  discord: DiscordClient | undefined
  channelId: string | undefined
  clock: Clock
  appOrigin: string
}) {
  return async (data: { seq: number }) => {
    const entry = await deps.repo.entry(data.seq)
    if (!entry) return
    const signal = await deps.repo.findById(entry.signal_id)
    if (!signal) return
    const content = signal.content
    const title =
      entry.type === 'publish'
        ? `**New ${signal.kind === 'pick' ? 'pick' : 'signal'}** · ${headline(content)}\n${details(content, 'discord')}`
        : entry.type === 'settle'
          ? `**Settled** · ${headline(content)}: ${signal.result} ${units(signal.profit_units ?? 0)}`
          : `**Void** · ${headline(content)}: ${signal.void_reason ?? ''}`
    if (deps.discord && deps.channelId) {
      const analysis =
        entry.type === 'publish' && typeof content.analysis === 'string' ? `\n\n${content.analysis}` : ''
      const text = `${title}${analysis}`
      await deps.discord.sendMessage(
        deps.channelId,
        text.length > DISCORD_LIMIT ? `${text.slice(0, DISCORD_LIMIT - 1)}…` : text,
      )
    }
    if (entry.type !== 'publish') return
    await deps.repo.transaction(async (trx) => {
      const recipients = await deps.repo.listSubscribersWithAccess(deps.clock.now(), trx)
      await deps.jobs.enqueueMany(
        'email.bulk',
        recipients.map((recipient) => ({
          key: `signal-mail:${signal.id}:${recipient.id}`,
          data: {
            message: {
              to: recipient.email,
              ...renderEmail({
                subject: `${site.name}: new ${signal.kind === 'pick' ? 'pick' : 'signal'} · ${headline(content)}`,
                heading: `New ${signal.kind === 'pick' ? 'pick' : 'trading signal'}`,
                paragraphs: [`Hi ${recipient.first_name},`, headline(content), details(content, 'email')],
                action: { label: 'Open the signal room', url: `${deps.appOrigin}/dashboard?tab=signals` },
                footnote:
                  'You get this because you asked for trading insights and market updates. Turn them off in Settings.',
              }),
            },
          },
        })),
        { trx },
      )
    })
  }
}
