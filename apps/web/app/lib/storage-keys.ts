/** The browser storage keys. Fixed names: stored sessions live under them, so renaming one signs everybody out. */
export const STORAGE_KEYS = {
  token: 'token',
  refreshToken: 'refreshToken',
  user: 'user',
  /** localStorage: 'true' when the member asked to stay signed in. */
  rememberMe: 'rememberMe',
  /** sessionStorage: the sidebar state the member chose by hand. */
  sidebarToggled: 'sidebarToggled',
} as const
