import { dashboardTab, formatDate, paths } from '@edgeclub/shared'

/**
 * What the bot writes. Plain text plus entities (never a parse mode), so nothing a member or an
 * analyst typed can break the markup; the headline of a message is its first line, in bold.
 */

export interface BotMessage {
  text: string
  /** UTF-16 length of the bold first line, if any (Telegram counts entity offsets in UTF-16 units). */
  boldLength?: number
  /** URL buttons, one a row. */
  buttons?: { text: string; url: string }[]
}

/** Telegram's limit on a message's text. */
export const TELEGRAM_TEXT_LIMIT = 4096

const dateOf = (date: Date) =>
  formatDate(date, { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' })

/** A headline in bold over a body; the whole is cut to Telegram's limit. */
export function headlined(headline: string, body: string, buttons?: BotMessage['buttons']): BotMessage {
  const text = body ? `${headline}\n${body}` : headline
  const cut = text.length > TELEGRAM_TEXT_LIMIT ? `${text.slice(0, TELEGRAM_TEXT_LIMIT - 1)}…` : text
  return { text: cut, boldLength: Math.min(headline.length, cut.length), ...(buttons ? { buttons } : {}) }
}

export function botTexts(appOrigin: string) {
  const community = `${appOrigin}${dashboardTab('community')}`
  return {
    welcome: headlined(
      'Welcome to EdgeClub',
      `To tie this Telegram account to your membership, open ${community} and click Connect Telegram.`,
    ),
    tokenUnknown: headlined(
      'This link is not valid',
      `Open ${community} and click Connect Telegram for a new one.`,
    ),
    tokenUsed: headlined(
      'This link has already been used',
      `Each link works once. Open ${community} and click Connect Telegram for a new one.`,
    ),
    tokenExpired: headlined(
      'This link has expired',
      `Links last a few minutes. Open ${community} and click Connect Telegram for a new one.`,
    ),
    banned: headlined('Your Telegram access has been suspended', 'Please contact support.'),
    /** The answer to Start with a member's link: tied, and their chats (links, all joined, or none). */
    connected: (
      welcome: { name?: string; moved: boolean },
      chats: { links: { title: string; link: string }[]; granted: number },
    ) => {
      const outcome =
        chats.links.length > 0
          ? 'Tap a chat below to ask to join; the bot lets this account in at once. The links are yours: anyone else who tries them is turned away.'
          : chats.granted > 0
            ? 'You are in every chat your plan opens.'
            : `Your plan does not open any Telegram chat right now. See the plans at ${appOrigin}${paths.pricing}`
      return headlined(
        'Connected',
        `This Telegram account is now tied to ${welcome.name ? `${welcome.name}'s` : 'your'} EdgeClub membership${welcome.moved ? ' (it was tied to another membership before)' : ''}. ${outcome}\n\n/status shows your plan, /links sends your chat links again, /stop disconnects.`,
        chats.links.map((chat) => ({ text: `Join ${chat.title}`, url: chat.link })),
      )
    },
    alreadyConnected: headlined(
      'Already connected',
      'This account is already tied to this membership. /links sends your chat links again.',
    ),
    notConnected: headlined(
      'Not connected',
      `This Telegram account is not tied to an EdgeClub membership. Open ${community} and click Connect Telegram.`,
    ),
    stopped: headlined(
      'Disconnected',
      'This Telegram account is no longer tied to your EdgeClub membership, and you are being removed from the EdgeClub chats. Connect again from your dashboard at any time.',
    ),
    help: headlined(
      'EdgeClub bot',
      '/status shows your plan and chats, /links sends your chat links again, /stop disconnects this account.',
    ),
    status: (input: {
      plan: { name: string; endDate: Date | null; renews: boolean } | null
      chats: { title: string; member: boolean }[]
    }) => {
      const plan = input.plan
        ? input.plan.endDate === null
          ? `Plan: ${input.plan.name} (lifetime)`
          : `Plan: ${input.plan.name}, ${input.plan.renews ? 'renews on' : 'ends on'} ${dateOf(input.plan.endDate)}`
        : `No active plan. See the plans at ${appOrigin}${paths.pricing}`
      const chats = input.chats.map((chat) => `${chat.member ? '✓' : '·'} ${chat.title}`).join('\n')
      return headlined('Your EdgeClub membership', chats ? `${plan}\n\nChats:\n${chats}` : plan)
    },
    links: (chats: { title: string; link: string }[]) =>
      headlined(
        'Your EdgeClub chats',
        'Tap a chat to ask to join; the bot lets this account in at once. The links are yours: anyone else who tries them is turned away.',
        chats.map((chat) => ({ text: `Join ${chat.title}`, url: chat.link })),
      ),
    allJoined: headlined('You are in every chat your plan opens', 'Nothing to join right now.'),
    noChats: headlined(
      'No chats to join',
      `Your plan does not open any Telegram chat right now. See the plans at ${appOrigin}${paths.pricing}`,
    ),
    strangerDeclined: (title: string) =>
      headlined(
        `${title} is for EdgeClub members`,
        `That link belongs to someone else's membership. Members connect Telegram at ${community} and get their own links.`,
      ),
    renewalFailed: (planName: string, graceUntil: Date) =>
      headlined(
        'Your EdgeClub payment failed',
        `We could not renew ${planName}. Update your card by ${dateOf(graceUntil)} to keep your access: ${appOrigin}${dashboardTab('payments')}`,
      ),
    renewalReminder: (planName: string, endDate: Date) =>
      headlined(
        'Your EdgeClub plan ends soon',
        `${planName} ends on ${dateOf(endDate)}. Renew to keep your access: ${appOrigin}${dashboardTab('subscription')}`,
      ),
    broadcast: (title: string | undefined, message: string) =>
      title ? headlined(title, message) : { text: message.slice(0, TELEGRAM_TEXT_LIMIT) },
  }
}
export type BotTexts = ReturnType<typeof botTexts>
