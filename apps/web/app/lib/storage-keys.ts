/** DESIGN §4 (contract): the browser storage keys. */
export const STORAGE_KEYS = {
  token: 'token',
  refreshToken: 'refreshToken',
  user: 'user',
  /** localStorage: 'true' when the member asked to stay signed in. */
  rememberMe: 'rememberMe',
  /** sessionStorage: the sidebar state the member chose by hand. */
  sidebarToggled: 'sidebarToggled',
} as const
