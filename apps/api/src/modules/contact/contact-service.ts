import { type ContactMessage, site, subjectLabel } from '@edgeclub/shared'
import { renderEmail } from '../../integrations/mail/templates'
import type { EmailQueue } from '../../jobs/email-worker'
import type { ContactRepository } from './contact-repository'

export function createContactService(deps: { repo: ContactRepository; email: EmailQueue }) {
  return {
    /** Stores the message first (nothing is lost if mail is down), then queues it for the support inbox. */
    async submit(message: ContactMessage, ip: string): Promise<{ id: string }> {
      const { id } = await deps.repo.insert({ ...message, ip })
      const subject = subjectLabel(message.subject)
      await deps.email.enqueue({
        to: site.supportEmail,
        replyTo: message.email,
        ...renderEmail({
          subject: `[Contact] ${subject} from ${message.name}`,
          heading: `${subject}: a message from ${message.name}`,
          paragraphs: [`From: ${message.name} <${message.email}>`, message.message],
          footnote: `Reply to this email to answer ${message.name} directly. Reference: ${id}`,
        }),
      })
      return { id }
    },
  }
}
export type ContactService = ReturnType<typeof createContactService>
