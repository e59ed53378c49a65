import { dashboardTab, formatDate, formatMoney, fromMinorUnits, site, updateCardPath } from '@edgeclub/shared'
import type { MailMessage } from '../integrations/mail/mailer'
import { renderEmail } from './render'

/** Emails about money and membership: receipts, renewals, cancellations. Links come from shared paths. */

const day = (date: Date) =>
  formatDate(date, { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' })

/** A renewal was declined (and, as a reminder, its grace ends soon): the button opens the card form. */
export function renewalFailedEmail(input: {
  to: string
  firstName: string
  planName: string
  graceUntil: Date
  appOrigin: string
  reminder?: boolean
}): MailMessage {
  return {
    to: input.to,
    ...renderEmail({
      subject: input.reminder
        ? `Last day: update your card to keep your ${site.name} access`
        : `Action needed: your ${site.name} renewal failed`,
      heading: input.reminder ? 'Your access ends tomorrow' : 'We could not renew your membership',
      paragraphs: [
        `Hi ${input.firstName},`,
        input.reminder
          ? `The renewal of your ${input.planName} plan is still unpaid. Your access ends on ${day(input.graceUntil)} unless you update your card.`
          : `The renewal of your ${input.planName} plan was declined. Your access continues until ${day(input.graceUntil)} while you update your card.`,
        'Saving a new card pays the renewal at once.',
      ],
      action: { label: 'Update card', url: `${input.appOrigin}${updateCardPath()}` },
    }),
  }
}

/** Three days before a trial ends: when the first charge falls, and how to stop it. */
export function trialEndingEmail(input: {
  to: string
  firstName: string
  planName: string
  trialEnd: Date
  amountLabel: string
  appOrigin: string
}): MailMessage {
  return {
    to: input.to,
    ...renderEmail({
      subject: `Your ${site.name} trial ends on ${day(input.trialEnd)}`,
      heading: 'Your free trial ends soon',
      paragraphs: [
        `Hi ${input.firstName},`,
        `Your free trial of the ${input.planName} plan ends on ${day(input.trialEnd)}. Your card will then be charged ${input.amountLabel}.`,
        'Nothing to do to keep your access. Cancel before then from your dashboard and you will not be charged.',
      ],
      action: { label: 'Manage your plan', url: `${input.appOrigin}${dashboardTab('subscription')}` },
    }),
  }
}

/** A week before a yearly renewal: what is charged, and when. */
export function upcomingRenewalEmail(input: {
  to: string
  firstName: string
  planName: string
  chargeAt: Date
  amountLabel: string
  appOrigin: string
}): MailMessage {
  return {
    to: input.to,
    ...renderEmail({
      subject: `Your ${site.name} ${input.planName} plan renews on ${day(input.chargeAt)}`,
      heading: 'Your yearly plan renews next week',
      paragraphs: [
        `Hi ${input.firstName},`,
        `Your ${input.planName} plan renews on ${day(input.chargeAt)} and your card will be charged ${input.amountLabel}.`,
        'To change plan, pause or stop the renewal, open your dashboard before then.',
      ],
      action: { label: 'Manage your plan', url: `${input.appOrigin}${dashboardTab('subscription')}` },
    }),
  }
}

/** Three days before a paused plan resumes (and is charged again). */
export function resumeReminderEmail(input: {
  to: string
  firstName: string
  planName: string
  resumesAt: Date
  appOrigin: string
}): MailMessage {
  return {
    to: input.to,
    ...renderEmail({
      subject: `Your ${site.name} ${input.planName} plan resumes on ${day(input.resumesAt)}`,
      heading: 'Welcome back soon',
      paragraphs: [
        `Hi ${input.firstName},`,
        `Your paused ${input.planName} plan resumes on ${day(input.resumesAt)}: your card is charged then and your access comes back.`,
      ],
      action: { label: 'Manage your plan', url: `${input.appOrigin}${dashboardTab('subscription')}` },
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
