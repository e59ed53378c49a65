import { paths, site } from '@edgeclub/shared'
import type { MailMessage } from '../integrations/mail/mailer'
import { renderEmail } from './render'

/** Emails about the account itself: welcome, password reset and change. */

export function resetEmail(to: string, firstName: string, link: string): MailMessage {
  return {
    to,
    ...renderEmail({
      subject: `Reset your ${site.name} password`,
      heading: 'Reset your password',
      paragraphs: [
        `Hi ${firstName},`,
        `Someone (hopefully you) asked to reset the password of your ${site.name} account. The link below works once, for 30 minutes.`,
      ],
      action: { label: 'Choose a new password', url: link },
      footnote: 'If you did not ask for this, ignore this email: your password stays as it is.',
    }),
  }
}

export function passwordChangedEmail(to: string, firstName: string, how: 'changed' | 'reset'): MailMessage {
  return {
    to,
    ...renderEmail({
      subject: `Your ${site.name} password was ${how}`,
      heading: `Your password was ${how}`,
      paragraphs: [
        `Hi ${firstName},`,
        `The password of your ${site.name} account was ${how} just now, and every device signed in with the old one has been signed out.`,
      ],
      footnote: `If this was not you, reset your password at once and write to ${site.supportEmail}.`,
    }),
  }
}

export function welcomeEmail(to: string, firstName: string, appOrigin: string): MailMessage {
  return {
    to,
    ...renderEmail({
      subject: `Welcome to ${site.name}`,
      heading: `Welcome to ${site.name}, ${firstName}!`,
      paragraphs: [
        'Your account is ready. Choose a plan to unlock daily AI picks, trading signals and the private Discord community.',
      ],
      action: { label: 'Choose your plan', url: `${appOrigin}${paths.pricing}` },
    }),
  }
}
