/**
 * The bounds of trials and pauses and the reasons a member may give at cancel, with their labels
 * (billing.ts has the schemas). Without zod: the member's Subscription tab reads them on its first load.
 */

export const TRIAL_DAYS_MAX = 90
export const PAUSE_PERIODS = [1, 2, 3] as const

export const CANCEL_REASONS = [
  'too_expensive',
  'not_using',
  'results',
  'switching',
  'temporary',
  'other',
] as const
export const CANCEL_REASON_LABELS: Record<(typeof CANCEL_REASONS)[number], string> = {
  too_expensive: 'It costs too much',
  not_using: 'I am not using it enough',
  results: 'The picks did not work for me',
  switching: 'I am moving to another service',
  temporary: 'I need a break',
  other: 'Something else',
}
