import { dashboardTab, site } from '@edgeclub/shared'
import type { MailMessage } from '../integrations/mail/mailer'
import { renderEmail } from './render'

/** Why an opted-in member gets news: said at the foot of every such email. */
const OPTED_IN =
  'You get this because you asked for trading insights and market updates. Turn them off in Settings.'

/** An admin broadcast, emailed to members who opted in. */
export function broadcastEmail(
  recipient: { email: string; first_name: string },
  input: { title?: string | undefined; message: string },
): MailMessage {
  return {
    to: recipient.email,
    ...renderEmail({
      subject: input.title ? `${site.name}: ${input.title}` : `News from ${site.name}`,
      heading: input.title ?? `News from ${site.name}`,
      paragraphs: [`Hi ${recipient.first_name},`, input.message],
      footnote: OPTED_IN,
    }),
  }
}

/** A new pick or trading signal, in the words of shared/signal-text (signalAnnouncement). */
export function signalEmail(
  recipient: { email: string; first_name: string },
  signal: {
    kind: 'pick' | 'signal'
    subject: string
    headline: string
    details: string
    /** Its commitment and signed record head (witnessText), when the head is known. */
    witness?: string
  },
  appOrigin: string,
): MailMessage {
  return {
    to: recipient.email,
    ...renderEmail({
      subject: `${site.name}: new ${signal.kind === 'pick' ? 'pick' : 'signal'} · ${signal.subject}`,
      heading: `New ${signal.kind === 'pick' ? 'pick' : 'trading signal'}`,
      paragraphs: [
        `Hi ${recipient.first_name},`,
        signal.headline,
        signal.details,
        ...(signal.witness ? [signal.witness] : []),
      ],
      action: { label: 'Open the signal room', url: `${appOrigin}${dashboardTab('signals')}` },
      footnote: OPTED_IN,
    }),
  }
}
