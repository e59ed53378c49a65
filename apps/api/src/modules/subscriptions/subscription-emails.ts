import { site } from '@edgeclub/shared'
import type { MailMessage } from '../../integrations/mail/mailer'
import { renderEmail } from '../../integrations/mail/templates'

const day = (date: Date) =>
  date.toLocaleDateString('en-US', { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' })

export function renewalFailedEmail(input: {
  to: string
  firstName: string
  planName: string
  graceUntil: Date
  appOrigin: string
}): MailMessage {
  return {
    to: input.to,
    ...renderEmail({
      subject: `Action needed: your ${site.name} renewal failed`,
      heading: 'We could not renew your membership',
      paragraphs: [
        `Hi ${input.firstName},`,
        `The renewal of your ${input.planName} plan was declined. Your access continues until ${day(input.graceUntil)} while you update your payment.`,
      ],
      action: { label: 'Pay now', url: `${input.appOrigin}/dashboard?tab=payments` },
    }),
  }
}

export function cancellationEmail(input: {
  to: string
  firstName: string
  planName: string
  endDate: Date
  appOrigin: string
}): MailMessage {
  return {
    to: input.to,
    ...renderEmail({
      subject: `Your ${site.name} ${input.planName} plan will not renew`,
      heading: 'Your cancellation is confirmed',
      paragraphs: [
        `Hi ${input.firstName},`,
        `Your ${input.planName} plan will not renew. You keep full access until ${day(input.endDate)}.`,
        'Changed your mind? Resume it from your dashboard any time before then.',
      ],
      action: { label: 'Manage your plan', url: `${input.appOrigin}/dashboard?tab=subscription` },
    }),
  }
}
