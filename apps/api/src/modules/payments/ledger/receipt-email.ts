import { formatMoney, fromMinorUnits, site } from '@edgeclub/shared'
import type { MailMessage } from '../../../integrations/mail/mailer'
import { renderEmail } from '../../../integrations/mail/templates'

const money = (minor: number, currency: string) => formatMoney(fromMinorUnits(minor, currency), currency)

export function receiptEmail(input: {
  to: string
  firstName: string
  what: string
  amountMinor: number
  currency: string
  paymentId: string
  appOrigin: string
}): MailMessage {
  return {
    to: input.to,
    ...renderEmail({
      subject: `Your ${site.name} receipt: ${money(input.amountMinor, input.currency)}`,
      heading: 'Thank you for your payment',
      paragraphs: [
        `Hi ${input.firstName},`,
        `We received ${money(input.amountMinor, input.currency)} for ${input.what}.`,
        `Receipt reference: ${input.paymentId}`,
      ],
      action: { label: 'Open your dashboard', url: `${input.appOrigin}/dashboard?tab=payments` },
    }),
  }
}
