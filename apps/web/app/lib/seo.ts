import { site } from '@edgeclub/shared'

/** Title, description and Open Graph tags of one page. */
export function seo(title: string, description: string) {
  const fullTitle =
    title === site.name ? `${site.name} — AI sports picks and trading signals` : `${title} — ${site.name}`
  return [
    { title: fullTitle },
    { name: 'description', content: description },
    { property: 'og:site_name', content: site.name },
    { property: 'og:type', content: 'website' },
    { property: 'og:title', content: fullTitle },
    { property: 'og:description', content: description },
    { name: 'twitter:card', content: 'summary' },
  ]
}
