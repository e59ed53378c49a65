import { paths } from '@edgeclub/shared'
import { ButtonLink } from '../components/ui/button'
import { Container } from '../components/ui/layout'

export function meta() {
  return [{ title: 'Page not found — EdgeClub' }, { name: 'robots', content: 'noindex' }]
}

/** LAYOUT-11: unknown paths get a real page (and a 404 status from the server). */
export default function NotFound() {
  return (
    <Container className="flex flex-col items-center py-24 text-center">
      <p className="text-sm font-semibold text-emerald-300">404</p>
      <h1 className="mt-2 text-4xl font-extrabold text-white">Page not found</h1>
      <p className="mt-4 max-w-md text-slate-300">
        The page you are looking for does not exist or has moved.
      </p>
      <ButtonLink to={paths.home} className="mt-8">
        Back to home
      </ButtonLink>
    </Container>
  )
}
