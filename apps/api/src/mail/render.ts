import { site } from '@edgeclub/shared'

/** One look for every EdgeClub email: a text part and an HTML part built from the same content. */
export interface EmailContent {
  subject: string
  heading: string
  paragraphs: string[]
  action?: { label: string; url: string }
  footnote?: string
}

const escapeHtml = (value: string) =>
  value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;')

export function renderEmail(content: EmailContent): { subject: string; text: string; html: string } {
  const text = [
    content.heading,
    '',
    ...content.paragraphs.flatMap((paragraph) => [paragraph, '']),
    ...(content.action ? [`${content.action.label}: ${content.action.url}`, ''] : []),
    ...(content.footnote ? [content.footnote, ''] : []),
    `— ${site.name} · ${site.supportEmail}`,
  ].join('\n')

  const paragraphs = content.paragraphs
    .map(
      (paragraph) =>
        `<p style="margin:0 0 16px;line-height:1.6">${escapeHtml(paragraph).replaceAll('\n', '<br>')}</p>`,
    )
    .join('')
  const action = content.action
    ? `<p style="margin:24px 0"><a href="${escapeHtml(content.action.url)}" style="display:inline-block;background:#10b981;color:#04130d;font-weight:700;padding:12px 20px;border-radius:8px;text-decoration:none">${escapeHtml(content.action.label)}</a></p>`
    : ''
  const footnote = content.footnote
    ? `<p style="margin:16px 0 0;font-size:13px;color:#94a3b8">${escapeHtml(content.footnote)}</p>`
    : ''
  const html = `<!doctype html><html><body style="margin:0;background:#0b1220;font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#e2e8f0">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center" style="padding:32px 16px">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:560px;background:#111a2e;border:1px solid #1e293b;border-radius:12px">
<tr><td style="padding:24px 28px;border-bottom:1px solid #1e293b;font-size:20px;font-weight:800;color:#34d399">${site.name}</td></tr>
<tr><td style="padding:28px">
<h1 style="margin:0 0 16px;font-size:22px;color:#f8fafc">${escapeHtml(content.heading)}</h1>
${paragraphs}${action}${footnote}
</td></tr>
<tr><td style="padding:16px 28px;border-top:1px solid #1e293b;font-size:12px;color:#64748b">${escapeHtml(site.tagline)}<br>${site.supportEmail}</td></tr>
</table></td></tr></table></body></html>`
  return { subject: content.subject, text, html }
}
