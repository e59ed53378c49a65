// The contact form's texts and limits without zod: the public contact page renders them before any
// validation library loads.

/** The contact form's subjects, as value and label. */
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

export function subjectLabel(value: string): string {
  return CONTACT_SUBJECTS.find((subject) => subject.value === value)?.label ?? value
}
