import { pending } from '../lib/figures'
import type { Section } from '../lib/section'

/**
 * Job throughput, to be filled in when the mail jobs can be driven in bulk: emails per second
 * through the emulator's SMTP sink (SMTP_URL=emulator.mail.smtpUrl), and how long a broadcast to
 * 1,000 recipients takes from the admin's request to the last email in the sink. Until then the
 * figures are listed without values so the table shows the gap.
 */
export const jobsSection: Section = {
  name: 'jobs',
  title: 'job throughput (emails through an SMTP sink)',
  async run() {
    const why = 'not measured yet: no bulk mail path to drive (hook: bench/sections/jobs.ts)'
    return {
      figures: [
        pending('jobs.emailsPerSecond', 'emails/s through the SMTP sink', why, { unit: '/s' }),
        pending('jobs.broadcast1000', '1,000-recipient broadcast, request → last email', why, { unit: 's' }),
      ],
    }
  },
}
