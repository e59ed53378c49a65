import { type ContactMessage, site, subjectLabel } from '@edgeclub/shared'
import type { MailMessage } from '../integrations/mail/mailer'
import { renderEmail } from './render'

/** A visitor's contact form message, for the support inbox (reply goes straight to the visitor). */
export function contactEmail(message: ContactMessage, reference: string): MailMessage {
  const subject = subjectLabel(message.subject)
  return {
    to: site.supportEmail,
    replyTo: message.email,
    ...renderEmail({
      subject: `[Contact] ${subject} from ${message.name}`,
      heading: `${subject}: a message from ${message.name}`,
      paragraphs: [`From: ${message.name} <${message.email}>`, message.message],
      footnote: `Reply to this email to answer ${message.name} directly. Reference: ${reference}`,
    }),
  }
}
