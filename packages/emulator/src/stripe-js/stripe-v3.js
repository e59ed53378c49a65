/*
 * EdgeClub's fake Stripe.js (dev/test only), served by the emulator at /stripe-js/v3.
 *
 * It defines window.Stripe with the surface @stripe/stripe-js and @stripe/react-stripe-js use, a
 * card Element made of real inputs in the host page, and confirmCardPayment against the emulator's
 * /v1 API with the publishable key and the PaymentIntent's client secret, as Stripe.js does.
 *
 * The host page has a strict Content-Security-Policy, so nothing here creates style attributes or
 * <style> elements from strings: every style is set through the CSSOM (element.style.x = ...).
 */
;(() => {
  // Replaced with the emulator's origin when the script is served.
  const API_BASE = '__EMULATOR_API_BASE__'

  if (window.Stripe?.__emulator) return

  const _AUTHENTICATION_FAILED =
    'We are unable to authenticate your payment method. Please choose a different payment method and try again.'
  const INVALID_COLOR = '#df1b41'

  // ---- Card numbers -------------------------------------------------------------------------

  const digitsOf = (value) => String(value ?? '').replace(/\D/g, '')

  function brandOf(number) {
    if (/^4/.test(number)) return 'visa'
    if (/^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/.test(number)) return 'mastercard'
    if (/^3[47]/.test(number)) return 'amex'
    if (/^(6011|65|64[4-9])/.test(number)) return 'discover'
    if (/^35/.test(number)) return 'jcb'
    if (/^(36|38|30[0-5])/.test(number)) return 'diners'
    if (/^62/.test(number)) return 'unionpay'
    return 'unknown'
  }

  const numberLength = (brand) => ({ amex: 15, diners: 14 })[brand] ?? 16
  const maxNumberLength = (brand) => (brand === 'unknown' ? 19 : numberLength(brand))
  const cvcLength = (brand) => (brand === 'amex' ? 4 : 3)

  function luhn(number) {
    let sum = 0
    let double = false
    for (let i = number.length - 1; i >= 0; i--) {
      let digit = Number(number[i])
      if (double) {
        digit *= 2
        if (digit > 9) digit -= 9
      }
      sum += digit
      double = !double
    }
    return sum % 10 === 0
  }

  function formatNumber(digits, brand) {
    const groups = brand === 'amex' ? [4, 6, 5] : brand === 'diners' ? [4, 6, 4] : [4, 4, 4, 4, 3]
    const parts = []
    let at = 0
    for (const size of groups) {
      if (at >= digits.length) break
      parts.push(digits.slice(at, at + size))
      at += size
    }
    return parts.join(' ')
  }

  function formatExpiry(raw) {
    let digits = digitsOf(raw).slice(0, 4)
    // "4" can only be April: Stripe's field completes it to "04".
    if (digits.length === 1 && Number(digits) > 1) digits = `0${digits}`
    return digits.length > 2 ? `${digits.slice(0, 2)} / ${digits.slice(2)}` : digits
  }

  // ---- Talking to the emulator --------------------------------------------------------------

  function encodeForm(value, prefix, pairs = []) {
    if (value === undefined || value === null) return pairs
    if (Array.isArray(value)) {
      for (const item of value) encodeForm(item, `${prefix}[]`, pairs)
    } else if (typeof value === 'object') {
      for (const [key, inner] of Object.entries(value))
        encodeForm(inner, prefix ? `${prefix}[${key}]` : key, pairs)
    } else {
      pairs.push(`${encodeURIComponent(prefix)}=${encodeURIComponent(String(value))}`)
    }
    return pairs
  }

  async function call(method, path, key, params) {
    // A form body and no custom headers keep this a "simple" CORS request, as Stripe.js does it.
    const body = encodeForm({ ...params, key }, '').join('&')
    const url = method === 'GET' ? `${API_BASE}${path}?${body}` : `${API_BASE}${path}`
    let response
    try {
      response = await fetch(url, {
        method,
        headers: method === 'GET' ? {} : { 'content-type': 'application/x-www-form-urlencoded' },
        body: method === 'GET' ? undefined : body,
      })
    } catch (cause) {
      return {
        error: {
          type: 'api_connection_error',
          message: `Could not reach the Stripe emulator at ${API_BASE}: ${cause instanceof Error ? cause.message : cause}`,
        },
      }
    }
    let json
    try {
      json = await response.json()
    } catch {
      return {
        error: {
          type: 'api_error',
          message: `The Stripe emulator answered ${response.status} without JSON.`,
        },
      }
    }
    if (!response.ok)
      return { error: json.error ?? { type: 'api_error', message: `HTTP ${response.status}` } }
    return { body: json }
  }

  function paymentIntentIdOf(clientSecret) {
    const match = /^(pi_[A-Za-z0-9]+)_secret_[A-Za-z0-9]+$/.exec(String(clientSecret ?? ''))
    return match ? match[1] : null
  }

  function integrationError(message) {
    const error = new Error(message)
    error.name = 'IntegrationError'
    return error
  }

  // ---- 3-D Secure ---------------------------------------------------------------------------

  let dialogCount = 0

  /** The in-page challenge: resolves 'success' or 'failure' with the customer's choice. */
  function askForAuthentication() {
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
      const button = (label, primary) => {
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
      const finish = (result) => {
        if (settled) return
        settled = true
        if (dialog.open) dialog.close()
        dialog.remove()
        if (previousFocus && typeof previousFocus.focus === 'function') previousFocus.focus()
        resolve(result)
      }
      complete.addEventListener('click', () => finish('success'))
      fail.addEventListener('click', () => finish('failure'))
      // Closing the challenge counts as failing it, as on Stripe.
      dialog.addEventListener('cancel', (event) => {
        event.preventDefault()
        finish('failure')
      })
      document.body.append(dialog)
      dialog.showModal()
      complete.focus()
    })
  }

  // ---- Events -------------------------------------------------------------------------------

  function createEmitter() {
    const handlers = new Map()
    return {
      on(type, handler) {
        if (!handlers.has(type)) handlers.set(type, [])
        handlers.get(type).push({ handler, once: false })
      },
      once(type, handler) {
        if (!handlers.has(type)) handlers.set(type, [])
        handlers.get(type).push({ handler, once: true })
      },
      off(type, handler) {
        if (!handler) handlers.delete(type)
        else
          handlers.set(
            type,
            (handlers.get(type) ?? []).filter((entry) => entry.handler !== handler),
          )
      },
      emit(type, payload) {
        const list = handlers.get(type) ?? []
        handlers.set(
          type,
          list.filter((entry) => !entry.once),
        )
        for (const entry of list) {
          try {
            entry.handler(payload)
          } catch (error) {
            setTimeout(() => {
              throw error
            })
          }
        }
      },
    }
  }

  // ---- The card Element ---------------------------------------------------------------------

  // The style options applied to the inputs, with what each falls back to when not given.
  const STYLE_DEFAULTS = {
    color: 'inherit',
    backgroundColor: 'transparent',
    fontFamily: 'inherit',
    fontSize: 'inherit',
    fontStyle: 'inherit',
    fontVariant: 'inherit',
    fontWeight: 'inherit',
    letterSpacing: 'inherit',
    lineHeight: 'inherit',
    textDecoration: 'none',
    textShadow: 'none',
    textTransform: 'none',
  }

  function createCardElement(group, initialOptions) {
    let options = { ...initialOptions }
    const emitter = createEmitter()
    const state = { number: '', expiry: '', cvc: '', postal: options.value?.postalCode ?? '' }
    const touched = { number: false, expiry: false, cvc: false, postal: false }
    let mountNode = null
    let destroyed = false
    let ready = false
    let focused = false
    let lastChange = ''
    // After a confirmation attempt even untouched empty fields show what is missing.
    let submitted = false

    const wrapper = document.createElement('div')
    wrapper.setAttribute('data-stripe-emulator', 'card')
    Object.assign(wrapper.style, { display: 'flex', alignItems: 'center', gap: '0.5em', width: '100%' })

    const makeInput = (name, label, placeholder, autocomplete, inputMode, flex) => {
      const input = document.createElement('input')
      input.type = 'text'
      input.name = name
      input.setAttribute('aria-label', label)
      input.placeholder = placeholder
      input.autocomplete = autocomplete
      input.inputMode = inputMode
      input.spellcheck = false
      input.setAttribute('autocorrect', 'off')
      Object.assign(input.style, {
        flex,
        minWidth: '0',
        width: '100%',
        border: '0',
        padding: '0',
        margin: '0',
      })
      wrapper.append(input)
      return input
    }
    const inputs = {
      number: makeInput(
        'cardnumber',
        'Card number',
        '1234 1234 1234 1234',
        'cc-number',
        'numeric',
        '1 1 10em',
      ),
      expiry: makeInput('exp-date', 'Expiration date', 'MM / YY', 'cc-exp', 'numeric', '0 0 5em'),
      cvc: makeInput('cvc', 'Security code', 'CVC', 'cc-csc', 'numeric', '0 0 3.5em'),
      postal: makeInput('postal', 'ZIP', 'ZIP', 'postal-code', 'text', '0 0 5em'),
    }
    inputs.postal.value = state.postal

    const brand = () => brandOf(state.number)

    function fieldStatus(field) {
      if (field === 'number') {
        const digits = state.number
        if (!digits) return { empty: true, complete: false, error: incomplete('incomplete_number') }
        if (digits.length < numberLength(brand()))
          return { empty: false, complete: false, error: incomplete('incomplete_number') }
        if (!luhn(digits)) return { empty: false, complete: false, error: invalid('invalid_number') }
        return { empty: false, complete: true }
      }
      if (field === 'expiry') {
        const digits = digitsOf(state.expiry)
        if (!digits) return { empty: true, complete: false, error: incomplete('incomplete_expiry') }
        if (digits.length < 4)
          return { empty: false, complete: false, error: incomplete('incomplete_expiry') }
        const month = Number(digits.slice(0, 2))
        const year = 2000 + Number(digits.slice(2, 4))
        const now = new Date()
        if (month < 1 || month > 12)
          return { empty: false, complete: false, error: invalid('invalid_expiry_month') }
        if (year < now.getFullYear())
          return { empty: false, complete: false, error: invalid('invalid_expiry_year_past') }
        if (year === now.getFullYear() && month < now.getMonth() + 1) {
          return { empty: false, complete: false, error: invalid('invalid_expiry_month_past') }
        }
        if (year > now.getFullYear() + 50)
          return { empty: false, complete: false, error: invalid('invalid_expiry_year') }
        return { empty: false, complete: true }
      }
      if (field === 'cvc') {
        if (!state.cvc) return { empty: true, complete: false, error: incomplete('incomplete_cvc') }
        if (state.cvc.length < cvcLength(brand()))
          return { empty: false, complete: false, error: incomplete('incomplete_cvc') }
        return { empty: false, complete: true }
      }
      if (options.hidePostalCode) return { empty: true, complete: true }
      const postal = state.postal.trim()
      if (!postal) return { empty: true, complete: false, error: incomplete('incomplete_zip') }
      if (/^\d+$/.test(postal) && postal.length < 5)
        return { empty: false, complete: false, error: incomplete('incomplete_zip') }
      return { empty: false, complete: true }
    }

    /** Invalid values show at once, incomplete ones once the customer has left the field. */
    function showsError(field, status) {
      if (!status.error) return false
      return status.error.when === 'always' || (touched[field] && (!status.empty || submitted))
    }

    function visibleError() {
      for (const field of ['number', 'expiry', 'cvc', 'postal']) {
        const status = fieldStatus(field)
        if (showsError(field, status)) return status.error
      }
      return undefined
    }

    function changeEvent() {
      const fields = ['number', 'expiry', 'cvc', 'postal'].map(fieldStatus)
      const error = visibleError()
      const event = {
        elementType: 'card',
        empty: fields.every((status) => status.empty),
        complete: fields.every((status) => status.complete),
        brand: brand(),
        value: { postalCode: options.hidePostalCode ? '' : state.postal.trim() },
      }
      if (error) event.error = { type: 'validation_error', code: error.code, message: error.message }
      else event.error = undefined
      return event
    }

    function paint() {
      const error = visibleError()
      const base = options.style?.base ?? {}
      const invalidStyle = options.style?.invalid ?? {}
      for (const [field, input] of Object.entries(inputs)) {
        const invalidNow = showsError(field, fieldStatus(field))
        input.setAttribute('aria-invalid', invalidNow ? 'true' : 'false')
        for (const [property, fallback] of Object.entries(STYLE_DEFAULTS)) {
          const given =
            invalidNow && invalidStyle[property] !== undefined ? invalidStyle[property] : base[property]
          input.style[property] = given ?? (property === 'color' && invalidNow ? INVALID_COLOR : fallback)
        }
        input.disabled = Boolean(options.disabled)
      }
      inputs.postal.hidden = Boolean(options.hidePostalCode)
      if (!mountNode) return
      const classes = {
        base: 'StripeElement',
        complete: 'StripeElement--complete',
        empty: 'StripeElement--empty',
        focus: 'StripeElement--focus',
        invalid: 'StripeElement--invalid',
        ...(options.classes ?? {}),
      }
      const event = changeEvent()
      mountNode.classList.add(classes.base)
      mountNode.classList.toggle(classes.complete, event.complete)
      mountNode.classList.toggle(classes.empty, event.empty)
      mountNode.classList.toggle(classes.focus, focused)
      mountNode.classList.toggle(classes.invalid, Boolean(error))
    }

    function notify() {
      paint()
      const event = changeEvent()
      const key = JSON.stringify(event)
      if (key === lastChange) return
      lastChange = key
      emitter.emit('change', event)
    }

    function reformat(input, formatted, keepDigitsBefore) {
      input.value = formatted
      if (document.activeElement !== input || keepDigitsBefore === null) return
      // Put the caret back after the same number of digits, wherever the formatting moved it.
      let seen = 0
      let position = formatted.length
      if (keepDigitsBefore === 0) position = 0
      else {
        for (let i = 0; i < formatted.length; i++) {
          if (/\d/.test(formatted[i])) seen += 1
          if (seen === keepDigitsBefore) {
            position = i + 1
            break
          }
        }
      }
      input.setSelectionRange(position, position)
    }

    function digitsBeforeCaret(input) {
      const caret = input.selectionStart
      if (caret === null || caret >= input.value.length) return null
      return digitsOf(input.value.slice(0, caret)).length
    }

    inputs.number.addEventListener('input', () => {
      const caret = digitsBeforeCaret(inputs.number)
      const digits = digitsOf(inputs.number.value)
      state.number = digits.slice(0, maxNumberLength(brandOf(digits)))
      reformat(inputs.number, formatNumber(state.number, brand()), caret)
      if (state.cvc.length > cvcLength(brand())) {
        state.cvc = state.cvc.slice(0, cvcLength(brand()))
        inputs.cvc.value = state.cvc
      }
      notify()
      if (fieldStatus('number').complete && caret === null) inputs.expiry.focus()
    })
    inputs.expiry.addEventListener('input', () => {
      const caret = digitsBeforeCaret(inputs.expiry)
      state.expiry = formatExpiry(inputs.expiry.value)
      reformat(inputs.expiry, state.expiry, caret)
      notify()
      if (fieldStatus('expiry').complete && caret === null) inputs.cvc.focus()
    })
    inputs.cvc.addEventListener('input', () => {
      state.cvc = digitsOf(inputs.cvc.value).slice(0, cvcLength(brand()))
      inputs.cvc.value = state.cvc
      notify()
      if (fieldStatus('cvc').complete && !options.hidePostalCode) inputs.postal.focus()
    })
    inputs.postal.addEventListener('input', () => {
      state.postal = inputs.postal.value
        .replace(/[^A-Za-z0-9 -]/g, '')
        .slice(0, 10)
        .toUpperCase()
      inputs.postal.value = state.postal
      notify()
    })
    for (const [field, input] of Object.entries(inputs)) {
      input.addEventListener('blur', () => {
        touched[field] = true
        notify()
      })
      input.addEventListener('keydown', (event) => {
        if (event.key === 'Escape') emitter.emit('escape', { elementType: 'card' })
      })
    }
    wrapper.addEventListener('focusin', () => {
      if (focused) return
      focused = true
      paint()
      emitter.emit('focus', { elementType: 'card' })
    })
    wrapper.addEventListener('focusout', (event) => {
      if (event.relatedTarget && wrapper.contains(event.relatedTarget)) return
      focused = false
      paint()
      emitter.emit('blur', { elementType: 'card' })
    })

    const element = {
      mount(target) {
        if (destroyed)
          throw integrationError('This Element has already been destroyed. Please create a new one.')
        const node = typeof target === 'string' ? document.querySelector(target) : target
        if (!node || typeof node.appendChild !== 'function') {
          throw integrationError(`The selector you specified (${String(target)}) applies to no DOM elements.`)
        }
        if (mountNode) element.unmount()
        mountNode = node
        node.appendChild(wrapper)
        paint()
        setTimeout(() => {
          if (!mountNode || ready) return
          ready = true
          emitter.emit('ready', { elementType: 'card' })
        }, 0)
      },
      unmount() {
        if (!mountNode) return
        wrapper.remove()
        mountNode.classList.remove(
          'StripeElement',
          'StripeElement--complete',
          'StripeElement--empty',
          'StripeElement--focus',
          'StripeElement--invalid',
        )
        mountNode = null
      },
      destroy() {
        element.unmount()
        destroyed = true
        group._forget(element)
      },
      on(type, handler) {
        emitter.on(type, handler)
        // React wrappers attach listeners a little after mounting; a late "ready" listener still hears it.
        if (type === 'ready' && ready && mountNode) setTimeout(() => handler({ elementType: 'card' }), 0)
        return element
      },
      once(type, handler) {
        emitter.once(type, handler)
        return element
      },
      off(type, handler) {
        emitter.off(type, handler)
        return element
      },
      update(next) {
        options = { ...options, ...next }
        if (next?.value?.postalCode !== undefined) {
          state.postal = String(next.value.postalCode)
          inputs.postal.value = state.postal
        }
        notify()
      },
      focus() {
        inputs.number.focus()
      },
      blur() {
        for (const input of Object.values(inputs)) input.blur()
      },
      clear() {
        state.number = ''
        state.expiry = ''
        state.cvc = ''
        state.postal = ''
        submitted = false
        for (const key of Object.keys(touched)) touched[key] = false
        for (const input of Object.values(inputs)) input.value = ''
        notify()
      },
      /** Card details for a confirmation, or Stripe's validation error (and the field shows it). */
      _emulatorCardDetails() {
        for (const field of ['number', 'expiry', 'cvc', 'postal']) {
          const status = fieldStatus(field)
          if (status.complete) continue
          submitted = true
          for (const key of Object.keys(touched)) touched[key] = true
          notify()
          const error = status.error ?? incomplete('incomplete_number')
          return { error: { type: 'validation_error', code: error.code, message: error.message } }
        }
        const expiry = digitsOf(state.expiry)
        return {
          card: {
            number: state.number,
            exp_month: Number(expiry.slice(0, 2)),
            exp_year: 2000 + Number(expiry.slice(2, 4)),
            cvc: state.cvc,
          },
          postalCode: options.hidePostalCode ? undefined : state.postal.trim(),
        }
      },
      __emulatorElementType: 'card',
    }
    paint()
    return element
  }

  const MESSAGES = {
    incomplete_number: 'Your card number is incomplete.',
    invalid_number: 'Your card number is invalid.',
    incomplete_expiry: "Your card's expiration date is incomplete.",
    invalid_expiry_month: "Your card's expiration date is invalid.",
    invalid_expiry_month_past: "Your card's expiration date is in the past.",
    invalid_expiry_year_past: "Your card's expiration year is in the past.",
    invalid_expiry_year: "Your card's expiration year is invalid.",
    incomplete_cvc: "Your card's security code is incomplete.",
    incomplete_zip: 'Your postal code is incomplete.',
  }
  const incomplete = (code) => ({ code, message: MESSAGES[code], when: 'blur' })
  const invalid = (code) => ({ code, message: MESSAGES[code], when: 'always' })

  function createElementsGroup(stripe) {
    const elements = new Map()
    const group = {
      create(type, options = {}) {
        if (type !== 'card') {
          throw integrationError(
            `The EdgeClub Stripe emulator implements only the 'card' Element, not '${type}'.`,
          )
        }
        if (elements.has(type)) throw integrationError(`Can only create one Element of type ${type}.`)
        const element = createCardElement(group, options)
        elements.set(type, element)
        return element
      },
      getElement(type) {
        // React's wrappers pass the component (CardElement) rather than the string.
        const name =
          typeof type === 'string' ? type : (type?.__elementType ?? type?.__emulatorElementType ?? 'card')
        return elements.get(name) ?? null
      },
      update() {},
      fetchUpdates: () => Promise.resolve({}),
      submit: () => Promise.resolve({}),
      _forget(element) {
        for (const [type, candidate] of elements) if (candidate === element) elements.delete(type)
      },
      _stripe: stripe,
    }
    return group
  }

  // ---- Stripe -------------------------------------------------------------------------------

  function unsupported(name) {
    return Promise.resolve({
      error: {
        type: 'invalid_request_error',
        message: `${name} is outside what the EdgeClub Stripe emulator covers (EdgeClub does not call it).`,
      },
    })
  }

  function Stripe(publishableKey, _options) {
    if (typeof publishableKey !== 'string' || !publishableKey.startsWith('pk_')) {
      throw integrationError(
        'Invalid value for Stripe(): apiKey should be a publishable key (pk_...). You specified: ' +
          String(publishableKey),
      )
    }
    const key = publishableKey
    const wrappers = []

    const withCardDetails = (paymentMethod) => {
      if (typeof paymentMethod === 'string') return { payment_method: paymentMethod }
      if (!paymentMethod?.card) return {}
      if (typeof paymentMethod.card._emulatorCardDetails !== 'function') {
        return {
          error: { type: 'invalid_request_error', message: 'payment_method.card must be a card Element.' },
        }
      }
      const details = paymentMethod.card._emulatorCardDetails()
      if (details.error) return details
      const billing = { ...(paymentMethod.billing_details ?? {}) }
      if (details.postalCode)
        billing.address = { ...(billing.address ?? {}), postal_code: details.postalCode }
      return { payment_method_data: { type: 'card', card: details.card, billing_details: billing } }
    }

    async function authenticate(paymentIntent, clientSecret) {
      const result = await askForAuthentication()
      const answer = await call('POST', `/stripe-js/3ds/${paymentIntent.id}`, key, {
        client_secret: clientSecret,
        result,
      })
      if (answer.error) return { error: answer.error }
      const updated = answer.body
      if (updated.status === 'requires_payment_method' && updated.last_payment_error) {
        return { error: { ...updated.last_payment_error, payment_intent: updated } }
      }
      return { paymentIntent: updated }
    }

    async function settle(answer, clientSecret, handleActions) {
      if (answer.error) return { error: answer.error }
      const paymentIntent = answer.body
      if (paymentIntent.status === 'requires_action' && handleActions)
        return authenticate(paymentIntent, clientSecret)
      return { paymentIntent }
    }

    const stripe = {
      _apiKey: key,
      _registerWrapper(wrapper) {
        wrappers.push(wrapper)
      },
      registerAppInfo() {},
      elements(options) {
        return createElementsGroup(stripe, options)
      },
      async confirmCardPayment(clientSecret, data = {}, options = {}) {
        const id = paymentIntentIdOf(clientSecret)
        if (!id)
          throw integrationError(
            'Invalid value for confirmCardPayment intent secret: value should be a client_secret string.',
          )
        const method = withCardDetails(data.payment_method)
        if (method.error) return { error: method.error }
        const params = {
          client_secret: clientSecret,
          use_stripe_sdk: 'true',
          expected_payment_method_type: 'card',
          ...method,
        }
        if (data.setup_future_usage) params.setup_future_usage = data.setup_future_usage
        if (data.receipt_email) params.receipt_email = data.receipt_email
        if (data.return_url) params.return_url = data.return_url
        const answer = await call('POST', `/v1/payment_intents/${id}/confirm`, key, params)
        return settle(answer, clientSecret, options.handleActions !== false)
      },
      async retrievePaymentIntent(clientSecret) {
        const id = paymentIntentIdOf(clientSecret)
        if (!id)
          throw integrationError(
            'Invalid value for retrievePaymentIntent: value should be a client_secret string.',
          )
        const answer = await call('GET', `/v1/payment_intents/${id}`, key, { client_secret: clientSecret })
        return answer.error ? { error: answer.error } : { paymentIntent: answer.body }
      },
      async handleCardAction(clientSecret) {
        const retrieved = await stripe.retrievePaymentIntent(clientSecret)
        if (retrieved.error) return retrieved
        if (retrieved.paymentIntent.status !== 'requires_action') return retrieved
        return authenticate(retrieved.paymentIntent, clientSecret)
      },
      handleNextAction(options = {}) {
        return stripe.handleCardAction(options.clientSecret)
      },
      async createPaymentMethod(typeOrData, element, extra) {
        const data =
          typeof typeOrData === 'string'
            ? { type: typeOrData, card: element, ...(extra ?? {}) }
            : { ...typeOrData }
        if ((data.type ?? 'card') !== 'card') return unsupported(`createPaymentMethod type ${data.type}`)
        const method = withCardDetails({ card: data.card, billing_details: data.billing_details })
        if (method.error) return { error: method.error }
        if (!method.payment_method_data) return unsupported('createPaymentMethod without a card Element')
        const answer = await call('POST', '/v1/payment_methods', key, {
          ...method.payment_method_data,
          ...(data.metadata ? { metadata: data.metadata } : {}),
        })
        return answer.error ? { error: answer.error } : { paymentMethod: answer.body }
      },
      createToken: () => unsupported('createToken'),
      createSource: () => unsupported('createSource'),
      confirmPayment: () => unsupported('confirmPayment (the Payment Element)'),
      confirmSetup: () => unsupported('confirmSetup'),
      confirmCardSetup: () => unsupported('confirmCardSetup'),
      retrieveSetupIntent: () => unsupported('retrieveSetupIntent'),
      paymentRequest() {
        throw integrationError(
          'paymentRequest is outside what the EdgeClub Stripe emulator covers (EdgeClub does not call it).',
        )
      },
    }
    return stripe
  }

  Stripe.version = 'endive'
  Stripe.__emulator = { apiBase: API_BASE }
  window.Stripe = Stripe
})()
