import { dashboardTab, formatMoney, fromMinorUnits, site } from '@edgeclub/shared'
import type { MailMessage } from '../integrations/mail/mailer'
import { renderEmail } from './render'

/** Emails about money and membership: receipts, renewals, cancellations. Links come from shared paths. */

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
      action: { label: 'Pay now', url: `${input.appOrigin}${dashboardTab('payments')}` },
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
      action: { label: 'Manage your plan', url: `${input.appOrigin}${dashboardTab('subscription')}` },
    }),
  }
}

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
      action: { label: 'Open your dashboard', url: `${input.appOrigin}${dashboardTab('payments')}` },
    }),
  }
}

/** Crypto does not renew by itself: a reminder before a crypto-paid period ends. */
export function cryptoRenewalReminderEmail(input: {
  to: string
  firstName: string
  planName: string
  endDate: Date
  appOrigin: string
}): MailMessage {
  return {
    to: input.to,
    ...renderEmail({
      subject: `Your ${site.name} ${input.planName} plan ends on ${input.endDate.toISOString().slice(0, 10)}`,
      heading: 'Time to renew',
      paragraphs: [
        `Hi ${input.firstName},`,
        `Crypto payments do not renew by themselves. Your ${input.planName} plan ends on ${input.endDate.toUTCString().slice(0, 16)}; renew now and the new period starts when this one ends.`,
      ],
      action: { label: 'Renew with crypto', url: `${input.appOrigin}${dashboardTab('subscription')}` },
    }),
  }
}
