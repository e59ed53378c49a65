import { useSearchParams } from 'react-router'

/** The console's link look. */
export const linkClasses = 'font-medium text-emerald-300 underline-offset-2 hover:underline'

/** A member's page in the console, from anywhere (the other lists, the audit log). */
export const memberHref = (userId: string) => `?section=users&user=${encodeURIComponent(userId)}`

/** The members list's address with one member opened (or closed): the list's search and page survive. */
export function useMemberLinks() {
  const [params] = useSearchParams()
  return (userId: string | null) => {
    const next = new URLSearchParams(params)
    next.set('section', 'users')
    if (userId) next.set('user', userId)
    else next.delete('user')
    return `?${next.toString()}`
  }
}
