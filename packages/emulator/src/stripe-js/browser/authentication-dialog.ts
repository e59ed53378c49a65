/**
 * The in-page 3-D Secure challenge: a modal <dialog> with Complete and Fail buttons. The host page
 * has a strict Content-Security-Policy, so styles go through the CSSOM, never style attributes.
 */

export type AuthenticationResult = 'success' | 'failure'

let dialogCount = 0

/** Resolves with the customer's choice; closing the dialog (Escape) fails it, as on Stripe. */
export function askForAuthentication(): Promise<AuthenticationResult> {
  return new Promise((resolve) => {
    dialogCount += 1
    const previousFocus = document.activeElement
    const dialog = document.createElement('dialog')
    const titleId = `stripe-emulator-3ds-title-${dialogCount}`
    const textId = `stripe-emulator-3ds-text-${dialogCount}`
    dialog.setAttribute('aria-labelledby', titleId)
    dialog.setAttribute('aria-describedby', textId)
    dialog.setAttribute('data-stripe-emulator', '3ds')
    Object.assign(dialog.style, {
      maxWidth: '24rem',
      padding: '1.5rem',
      border: '1px solid #d0d5dd',
      borderRadius: '12px',
      background: '#ffffff',
      color: '#1a1f36',
      fontFamily: 'system-ui, -apple-system, "Segoe UI", sans-serif',
      boxShadow: '0 12px 32px rgba(0, 0, 0, 0.25)',
    })
    const title = document.createElement('h2')
    title.id = titleId
    title.textContent = 'Authenticate your payment'
    Object.assign(title.style, { margin: '0 0 0.5rem', fontSize: '1.25rem' })
    const text = document.createElement('p')
    text.id = textId
    text.textContent =
      'Your bank asks you to confirm this payment (test 3-D Secure from the EdgeClub Stripe emulator).'
    Object.assign(text.style, { margin: '0 0 1rem', lineHeight: '1.4' })
    const actions = document.createElement('div')
    Object.assign(actions.style, { display: 'flex', gap: '0.75rem', flexWrap: 'wrap' })
    const button = (label: string, primary: boolean) => {
      const element = document.createElement('button')
      element.type = 'button'
      element.textContent = label
      Object.assign(element.style, {
        padding: '0.6rem 1rem',
        borderRadius: '8px',
        border: primary ? '1px solid #635bff' : '1px solid #d0d5dd',
        background: primary ? '#635bff' : '#ffffff',
        color: primary ? '#ffffff' : '#1a1f36',
        font: 'inherit',
        cursor: 'pointer',
      })
      return element
    }
    const complete = button('Complete authentication', true)
    const fail = button('Fail authentication', false)
    actions.append(complete, fail)
    dialog.append(title, text, actions)

    let settled = false
    const finish = (result: AuthenticationResult) => {
      if (settled) return
      settled = true
      if (dialog.open) dialog.close()
      dialog.remove()
      if (previousFocus instanceof HTMLElement || previousFocus instanceof SVGElement) previousFocus.focus()
      resolve(result)
    }
    complete.addEventListener('click', () => finish('success'))
    fail.addEventListener('click', () => finish('failure'))
    dialog.addEventListener('cancel', (event) => {
      event.preventDefault()
      finish('failure')
    })
    document.body.append(dialog)
    dialog.showModal()
    complete.focus()
  })
}
