/** Brand, contact details and marketing figures: one source for every page and email. */
export const site = {
  name: 'EdgeClub',
  tagline: 'AI-driven sports picks, trading signals and a community that plays to win.',
  supportEmail: 'support@edgeclub.io',
  copyrightYear: 2024,
  figures: {
    members: '15,000+',
    aiAccuracy: '95%',
    winRate: '78%',
    trackRecord: '3+ years',
    moneyBackDays: 30,
  },
  sports: ['NFL', 'NBA', 'MLB', 'NHL', 'Soccer', 'UFC'],
} as const
