import { cardBrand, luhnValid } from '../../stripe/cards'
import type { StripeJsError } from './emulator-api'

/**
 * The card Element: four real inputs (number, expiry, security code, ZIP) in the host page that
 * format, validate and report like Stripe's card field. Brand, length and Luhn rules come from the
 * emulator's card table, so the field and the API agree on what a valid number is.
 */

type Field = 'number' | 'expiry' | 'cvc' | 'postal'
const FIELDS: readonly Field[] = ['number', 'expiry', 'cvc', 'postal']

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
} as const

type MessageCode = keyof typeof MESSAGES

interface FieldError {
  code: MessageCode
  message: string
  /** Invalid values show at once; incomplete ones once the customer has left the field. */
  when: 'blur' | 'always'
}

interface FieldStatus {
  empty: boolean
  complete: boolean
  error?: FieldError
}

const incomplete = (code: MessageCode): FieldError => ({ code, message: MESSAGES[code], when: 'blur' })
const invalid = (code: MessageCode): FieldError => ({ code, message: MESSAGES[code], when: 'always' })

const INVALID_COLOR = '#df1b41'

/** The style options applied to the inputs, with what each falls back to when not given. */
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
} as const

type StyleProperty = keyof typeof STYLE_DEFAULTS

type ClassName = 'base' | 'complete' | 'empty' | 'focus' | 'invalid'

export interface CardElementOptions {
  style?: { base?: Record<string, unknown>; invalid?: Record<string, unknown> }
  classes?: Partial<Record<ClassName, string>>
  hidePostalCode?: boolean
  disabled?: boolean
  value?: { postalCode?: string }
}

export interface CardChangeEvent {
  elementType: 'card'
  empty: boolean
  complete: boolean
  brand: string
  value: { postalCode: string }
  error?: { type: 'validation_error'; code: MessageCode; message: string }
}

export type CardEvent = { elementType: 'card' } | CardChangeEvent
export type Listener = (event: CardEvent) => void

/** What a confirmation sends for the card, or Stripe's validation error when it is not complete. */
export type CardDetails =
  | { error: StripeJsError }
  | {
      error?: undefined
      card: { number: string; exp_month: number; exp_year: number; cvc: string }
      postalCode: string | undefined
    }

export interface CardElement {
  mount(target: string | Element): void
  unmount(): void
  destroy(): void
  on(type: string, handler: Listener): CardElement
  once(type: string, handler: Listener): CardElement
  off(type: string, handler?: Listener): CardElement
  update(next?: CardElementOptions): void
  focus(): void
  blur(): void
  clear(): void
  _emulatorCardDetails(): CardDetails
  __emulatorElementType: 'card'
}

export class IntegrationError extends Error {
  override name = 'IntegrationError'
}

const digitsOf = (value: unknown) => String(value ?? '').replace(/\D/g, '')

function formatNumber(digits: string): string {
  const parts: string[] = []
  let at = 0
  for (const size of cardBrand(digits).groups) {
    if (at >= digits.length) break
    parts.push(digits.slice(at, at + size))
    at += size
  }
  return parts.join(' ')
}

function formatExpiry(raw: string): string {
  let digits = digitsOf(raw).slice(0, 4)
  // "4" can only be April: Stripe's field completes it to "04".
  if (digits.length === 1 && Number(digits) > 1) digits = `0${digits}`
  return digits.length > 2 ? `${digits.slice(0, 2)} / ${digits.slice(2)}` : digits
}

function createEmitter() {
  const handlers = new Map<string, Array<{ handler: Listener; once: boolean }>>()
  return {
    on(type: string, handler: Listener, once = false) {
      handlers.set(type, [...(handlers.get(type) ?? []), { handler, once }])
    },
    off(type: string, handler?: Listener) {
      if (!handler) handlers.delete(type)
      else
        handlers.set(
          type,
          (handlers.get(type) ?? []).filter((entry) => entry.handler !== handler),
        )
    },
    emit(type: string, payload: CardEvent) {
      const list = handlers.get(type) ?? []
      handlers.set(
        type,
        list.filter((entry) => !entry.once),
      )
      for (const entry of list) {
        try {
          entry.handler(payload)
        } catch (error) {
          // A failing page listener must not stop the others; report it as an uncaught error.
          setTimeout(() => {
            throw error
          })
        }
      }
    },
  }
}

export function createCardElement(
  group: { _forget(element: CardElement): void },
  initialOptions: CardElementOptions,
): CardElement {
  let options: CardElementOptions = { ...initialOptions }
  const emitter = createEmitter()
  const state = { number: '', expiry: '', cvc: '', postal: options.value?.postalCode ?? '' }
  const touched: Record<Field, boolean> = { number: false, expiry: false, cvc: false, postal: false }
  let mountNode: Element | null = null
  let destroyed = false
  let ready = false
  let focused = false
  let lastChange = ''
  // After a confirmation attempt even untouched empty fields show what is missing.
  let submitted = false

  const wrapper = document.createElement('div')
  wrapper.setAttribute('data-stripe-emulator', 'card')
  Object.assign(wrapper.style, { display: 'flex', alignItems: 'center', gap: '0.5em', width: '100%' })

  const makeInput = (
    name: string,
    label: string,
    placeholder: string,
    autocomplete: AutoFill,
    inputMode: string,
    flex: string,
  ) => {
    const input = document.createElement('input')
    input.type = 'text'
    input.name = name
    input.setAttribute('aria-label', label)
    input.placeholder = placeholder
    input.autocomplete = autocomplete
    input.inputMode = inputMode
    input.spellcheck = false
    input.setAttribute('autocorrect', 'off')
    Object.assign(input.style, { flex, minWidth: '0', width: '100%', border: '0', padding: '0', margin: '0' })
    wrapper.append(input)
    return input
  }
  const inputs: Record<Field, HTMLInputElement> = {
    number: makeInput('cardnumber', 'Card number', '1234 1234 1234 1234', 'cc-number', 'numeric', '1 1 10em'),
    expiry: makeInput('exp-date', 'Expiration date', 'MM / YY', 'cc-exp', 'numeric', '0 0 5em'),
    cvc: makeInput('cvc', 'Security code', 'CVC', 'cc-csc', 'numeric', '0 0 3.5em'),
    postal: makeInput('postal', 'ZIP', 'ZIP', 'postal-code', 'text', '0 0 5em'),
  }
  inputs.postal.value = state.postal

  const brand = () => cardBrand(state.number)

  function fieldStatus(field: Field): FieldStatus {
    if (field === 'number') {
      const digits = state.number
      if (!digits) return { empty: true, complete: false, error: incomplete('incomplete_number') }
      if (digits.length < brand().length)
        return { empty: false, complete: false, error: incomplete('incomplete_number') }
      if (!luhnValid(digits)) return { empty: false, complete: false, error: invalid('invalid_number') }
      return { empty: false, complete: true }
    }
    if (field === 'expiry') {
      const digits = digitsOf(state.expiry)
      if (!digits) return { empty: true, complete: false, error: incomplete('incomplete_expiry') }
      if (digits.length < 4) return { empty: false, complete: false, error: incomplete('incomplete_expiry') }
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
      if (state.cvc.length < brand().cvcLength)
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

  function showsError(field: Field, status: FieldStatus): boolean {
    if (!status.error) return false
    return status.error.when === 'always' || (touched[field] && (!status.empty || submitted))
  }

  function visibleError(): FieldError | undefined {
    for (const field of FIELDS) {
      const status = fieldStatus(field)
      if (showsError(field, status)) return status.error
    }
    return undefined
  }

  function changeEvent(): CardChangeEvent {
    const fields = FIELDS.map(fieldStatus)
    const error = visibleError()
    return {
      elementType: 'card',
      empty: fields.every((status) => status.empty),
      complete: fields.every((status) => status.complete),
      brand: brand().brand,
      value: { postalCode: options.hidePostalCode ? '' : state.postal.trim() },
      error: error ? { type: 'validation_error', code: error.code, message: error.message } : undefined,
    }
  }

  function paint() {
    const error = visibleError()
    const base = options.style?.base ?? {}
    const invalidStyle = options.style?.invalid ?? {}
    for (const field of FIELDS) {
      const input = inputs[field]
      const invalidNow = showsError(field, fieldStatus(field))
      input.setAttribute('aria-invalid', invalidNow ? 'true' : 'false')
      for (const property of Object.keys(STYLE_DEFAULTS) as StyleProperty[]) {
        const given =
          invalidNow && invalidStyle[property] !== undefined ? invalidStyle[property] : base[property]
        const fallback = property === 'color' && invalidNow ? INVALID_COLOR : STYLE_DEFAULTS[property]
        input.style[property] = given === undefined || given === null ? fallback : String(given)
      }
      input.disabled = Boolean(options.disabled)
    }
    inputs.postal.hidden = Boolean(options.hidePostalCode)
    if (!mountNode) return
    const classes: Record<ClassName, string> = {
      base: 'StripeElement',
      complete: 'StripeElement--complete',
      empty: 'StripeElement--empty',
      focus: 'StripeElement--focus',
      invalid: 'StripeElement--invalid',
      ...options.classes,
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

  function reformat(input: HTMLInputElement, formatted: string, keepDigitsBefore: number | null) {
    input.value = formatted
    if (document.activeElement !== input || keepDigitsBefore === null) return
    // Put the caret back after the same number of digits, wherever the formatting moved it.
    let seen = 0
    let position = formatted.length
    if (keepDigitsBefore === 0) position = 0
    else {
      for (let i = 0; i < formatted.length; i++) {
        if (/\d/.test(formatted[i] ?? '')) seen += 1
        if (seen === keepDigitsBefore) {
          position = i + 1
          break
        }
      }
    }
    input.setSelectionRange(position, position)
  }

  function digitsBeforeCaret(input: HTMLInputElement): number | null {
    const caret = input.selectionStart
    if (caret === null || caret >= input.value.length) return null
    return digitsOf(input.value.slice(0, caret)).length
  }

  inputs.number.addEventListener('input', () => {
    const caret = digitsBeforeCaret(inputs.number)
    const digits = digitsOf(inputs.number.value)
    state.number = digits.slice(0, cardBrand(digits).maxLength)
    reformat(inputs.number, formatNumber(state.number), caret)
    if (state.cvc.length > brand().cvcLength) {
      state.cvc = state.cvc.slice(0, brand().cvcLength)
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
    state.cvc = digitsOf(inputs.cvc.value).slice(0, brand().cvcLength)
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
  for (const field of FIELDS) {
    inputs[field].addEventListener('blur', () => {
      touched[field] = true
      notify()
    })
    inputs[field].addEventListener('keydown', (event) => {
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
    if (event.relatedTarget instanceof Node && wrapper.contains(event.relatedTarget)) return
    focused = false
    paint()
    emitter.emit('blur', { elementType: 'card' })
  })

  const element: CardElement = {
    mount(target) {
      if (destroyed)
        throw new IntegrationError('This Element has already been destroyed. Please create a new one.')
      const node = typeof target === 'string' ? document.querySelector(target) : target
      if (!node || typeof node.appendChild !== 'function') {
        throw new IntegrationError(
          `The selector you specified (${String(target)}) applies to no DOM elements.`,
        )
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
      emitter.on(type, handler, true)
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
      for (const field of FIELDS) inputs[field].blur()
    },
    clear() {
      state.number = ''
      state.expiry = ''
      state.cvc = ''
      state.postal = ''
      submitted = false
      for (const field of FIELDS) {
        touched[field] = false
        inputs[field].value = ''
      }
      notify()
    },
    _emulatorCardDetails() {
      for (const field of FIELDS) {
        const status = fieldStatus(field)
        if (status.complete) continue
        submitted = true
        for (const other of FIELDS) touched[other] = true
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
