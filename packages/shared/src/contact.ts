import { z } from 'zod'

/** SPEC §2 Contact subjects, as value and label. */
export const CONTACT_SUBJECTS = [
  { value: 'general', label: 'General Inquiry' },
  { value: 'technical', label: 'Technical Support' },
  { value: 'billing', label: 'Billing Question' },
  { value: 'partnership', label: 'Partnership' },
  { value: 'other', label: 'Other' },
] as const

export const contactMessages = {
  nameRequired: 'Please enter your name',
  nameTooLong: 'Name must be 100 characters or less',
  emailInvalid: 'Please enter a valid email address',
  subjectInvalid: 'Please choose a subject',
  messageRequired: 'Please enter a message',
  messageTooLong: 'Message must be 5000 characters or less',
  sent: "Thanks! Your message has been sent. We'll get back to you within 24 hours.",
  failed: 'Your message could not be sent. Please try again in a moment.',
} as const

export const CONTACT_MESSAGE_MAX = 5000

export const ContactMessageSchema = z.object({
  name: z
    .string({ error: contactMessages.nameRequired })
    .trim()
    .min(1, contactMessages.nameRequired)
    .max(100, contactMessages.nameTooLong),
  email: z
    .string({ error: contactMessages.emailInvalid })
    .trim()
    .max(254, contactMessages.emailInvalid)
    .pipe(z.email(contactMessages.emailInvalid)),
  subject: z.enum(
    CONTACT_SUBJECTS.map((subject) => subject.value) as [string, ...string[]],
    contactMessages.subjectInvalid,
  ),
  message: z
    .string({ error: contactMessages.messageRequired })
    .trim()
    .min(1, contactMessages.messageRequired)
    .max(CONTACT_MESSAGE_MAX, contactMessages.messageTooLong),
})
export type ContactMessage = z.infer<typeof ContactMessageSchema>

export function subjectLabel(value: string): string {
  return CONTACT_SUBJECTS.find((subject) => subject.value === value)?.label ?? value
}
