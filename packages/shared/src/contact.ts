import { z } from 'zod'
import { CONTACT_MESSAGE_MAX, CONTACT_SUBJECTS, contactMessages } from './contact-rules'
import { text } from './text'

/** The contact form and POST /contact check a message with this one schema. */
export const ContactMessageSchema = z.object({
  name: text({ error: contactMessages.nameRequired })
    .trim()
    .min(1, contactMessages.nameRequired)
    .max(100, contactMessages.nameTooLong),
  email: text({ error: contactMessages.emailInvalid })
    .trim()
    .max(254, contactMessages.emailInvalid)
    .pipe(z.email(contactMessages.emailInvalid)),
  subject: z.enum(
    CONTACT_SUBJECTS.map((subject) => subject.value) as [string, ...string[]],
    contactMessages.subjectInvalid,
  ),
  message: text({ multiline: true, error: contactMessages.messageRequired })
    .trim()
    .min(1, contactMessages.messageRequired)
    .max(CONTACT_MESSAGE_MAX, contactMessages.messageTooLong),
})
export type ContactMessage = z.infer<typeof ContactMessageSchema>

/** POST /contact: the stored message's reference. */
export const ContactReceiptSchema = z.object({ id: z.string() })
export type ContactReceipt = z.infer<typeof ContactReceiptSchema>
