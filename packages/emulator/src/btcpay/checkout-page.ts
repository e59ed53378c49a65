import type { InvoiceData } from './greenfield-types'

/**
 * The invoice checkout page (BTCPay's /i/{invoiceId}). Plain HTML forms and no scripts, so it works
 * in any browser or HTTP client and a test can drive it by role and name. Nothing is loaded from
 * elsewhere: the emulator must work offline.
 */

export interface CheckoutView {
  storeName: string
  invoice: InvoiceData
  dueBtc: string
  paidBtc: string
  destination: string
  redirectUrl?: string
  /** Where the emulator's BTCPay routes are mounted, e.g. /btcpay. */
  base: string
  /** A message about the last action, e.g. why a button did nothing. */
  notice?: string
}

/** No form-action: Chrome applies it to the redirect after paying, which leaves for the app's origin. */
export const CHECKOUT_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'"

function escapeHtml(value: string): string {
  return value
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;')
}

function headline(view: CheckoutView): { title: string; detail: string } {
  const { invoice, storeName } = view
  switch (invoice.status) {
    case 'New':
      return invoice.additionalStatus === 'PaidPartial'
        ? {
            title: 'Partially paid',
            detail: `Received ${view.paidBtc} BTC; ${view.dueBtc} BTC is still due.`,
          }
        : { title: `Pay ${invoice.amount} ${invoice.currency}`, detail: 'Awaiting payment.' }
    case 'Processing':
      return {
        title: 'Payment received',
        detail: 'Your payment is waiting for confirmation on the blockchain.',
      }
    case 'Settled':
      return { title: 'Payment received', detail: 'Your payment is confirmed. Thank you!' }
    case 'Expired':
      return invoice.additionalStatus === 'PaidPartial'
        ? {
            title: 'Invoice expired',
            detail: `This invoice expired after a partial payment of ${view.paidBtc} BTC. Contact ${storeName} to sort it out.`,
          }
        : { title: 'Invoice expired', detail: 'This invoice expired before it was paid.' }
    case 'Invalid':
      return {
        title: 'Invoice invalid',
        detail: `This invoice is no longer valid. Contact ${storeName} if you paid it.`,
      }
  }
}

export function renderCheckoutPage(view: CheckoutView): string {
  const { invoice, storeName, base } = view
  const { title, detail } = headline(view)
  const id = escapeHtml(invoice.id)
  const payable = invoice.status === 'New'
  const itemDesc = typeof invoice.metadata.itemDesc === 'string' ? invoice.metadata.itemDesc : undefined
  const expires = new Date(invoice.expirationTime * 1000)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC')

  const actions = payable
    ? `
    <form method="post" action="${escapeHtml(`${base}/i/${invoice.id}/pay`)}" class="actions">
      <button type="submit" name="fraction" value="1">Pay in full</button>
      <button type="submit" name="fraction" value="0.5" class="secondary">Pay half (underpay)</button>
    </form>
    <form method="post" action="${escapeHtml(`${base}/i/${invoice.id}/expire`)}" class="actions">
      <button type="submit" class="secondary">Let it expire</button>
    </form>
    <p><a href="${escapeHtml(`${base}/i/${invoice.id}`)}">Refresh status</a></p>`
    : view.redirectUrl
      ? `<p><a class="button" href="${escapeHtml(view.redirectUrl)}">Return to ${escapeHtml(storeName)}</a></p>`
      : ''

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · ${escapeHtml(storeName)} · BTCPay (emulated)</title>
<style>
  :root { color-scheme: light; font-family: system-ui, sans-serif; line-height: 1.5; }
  body { margin: 0; background: #f3f4f6; color: #111827; }
  main { max-width: 28rem; margin: 2rem auto; padding: 1.5rem; background: #fff; border-radius: 0.75rem;
    box-shadow: 0 1px 3px rgb(0 0 0 / 0.15); }
  .store { margin: 0; font-weight: 700; font-size: 1.1rem; }
  h1 { font-size: 1.5rem; margin: 0.5rem 0; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 1rem; margin: 1rem 0; }
  dt { font-weight: 600; }
  dd { margin: 0; overflow-wrap: anywhere; }
  .actions { display: flex; flex-wrap: wrap; gap: 0.5rem; margin: 0.75rem 0; }
  button, .button { font: inherit; padding: 0.6rem 1rem; border-radius: 0.5rem; border: 2px solid #0f5132;
    background: #0f5132; color: #fff; cursor: pointer; text-decoration: none; display: inline-block; }
  button.secondary { background: #fff; color: #0f5132; }
  a { color: #0b4a8b; }
  :focus-visible { outline: 3px solid #b45309; outline-offset: 2px; }
  .notice { border-left: 4px solid #b45309; padding-left: 0.75rem; }
  .fine { color: #4b5563; font-size: 0.875rem; }
</style>
</head>
<body>
<main aria-labelledby="checkout-title">
  <p class="store">${escapeHtml(storeName)}</p>
  <h1 id="checkout-title">${escapeHtml(title)}</h1>
  ${view.notice ? `<p class="notice" role="alert">${escapeHtml(view.notice)}</p>` : ''}
  <p role="status">Status: <strong>${escapeHtml(invoice.status)}</strong>${
    invoice.additionalStatus === 'None' ? '' : ` (${escapeHtml(invoice.additionalStatus)})`
  }. ${escapeHtml(detail)}</p>
  <dl>
    <dt>Amount</dt><dd>${escapeHtml(`${invoice.amount} ${invoice.currency}`)}</dd>
    ${itemDesc ? `<dt>For</dt><dd>${escapeHtml(itemDesc)}</dd>` : ''}
    ${payable ? `<dt>Send</dt><dd>${escapeHtml(view.dueBtc)} BTC</dd><dt>To address</dt><dd><code>${escapeHtml(view.destination)}</code></dd><dt>Expires</dt><dd>${escapeHtml(expires)}</dd>` : ''}
    <dt>Invoice</dt><dd><code>${id}</code></dd>
  </dl>
  ${actions}
  <p class="fine">EdgeClub development emulator of BTCPay Server: no real bitcoin moves.</p>
</main>
</body>
</html>
`
}
