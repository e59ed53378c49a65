import type { ContactMessage } from '@edgeclub/shared'
import { contactEmail } from '../../mail/contact-emails'
import type { MailQueue } from '../../mail/mail-queue'
import type { ContactRepository } from './contact-repository'

export function createContactService(deps: { repo: ContactRepository; mail: Pick<MailQueue, 'enqueue'> }) {
  return {
    /** Stores the message first (nothing is lost if mail is down), then queues it for the support inbox. */
    async submit(message: ContactMessage, ip: string): Promise<{ id: string }> {
      const { id } = await deps.repo.insert({ ...message, ip })
      await deps.mail.enqueue(contactEmail(message, id))
      return { id }
    },
  }
}
export type ContactService = ReturnType<typeof createContactService>
