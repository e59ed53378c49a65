import { CONTACT_MESSAGE_MAX, CONTACT_SUBJECTS, type ContactReceipt, contactMessages } from '@edgeclub/shared'
import { type FormEvent, useLayoutEffect, useRef, useState } from 'react'
import { Button } from '../../components/ui/button'
import { Alert, Field, SelectInput, TextArea, TextField } from '../../components/ui/field'
import { apiRequest } from '../../lib/api-client'
import { serverFieldErrors, zodFieldErrors } from '../../lib/form-errors'
import { defineIsland } from '../../lib/island'

const empty = { name: '', email: '', subject: CONTACT_SUBJECTS[0].value as string, message: '' }
type Values = typeof empty

/**
 * The form checks a message with the same schema as POST /contact, but the contact page is public
 * and loads no validation library: the schema arrives when the visitor first focuses the form, or
 * at the latest when they send it.
 */
let schemaLoad: Promise<typeof import('./contact-schema')> | undefined
function loadSchema() {
  schemaLoad ??= import('./contact-schema').catch((error: unknown) => {
    schemaLoad = undefined
    throw error
  })
  return schemaLoad
}

/** The contact form: validated on both sides with one schema, stored and emailed to support. */
function ContactForm() {
  const [values, setValues] = useState<Values>(empty)
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [status, setStatus] = useState<'idle' | 'sending' | 'sent' | 'failed'>('idle')
  const [failure, setFailure] = useState<string>(contactMessages.failed)
  // A second press while the schema loads must not send the message twice.
  const checking = useRef(false)
  const form = useRef<HTMLFormElement>(null)

  // On a prerendered page the form is HTML before its script arrives, and a visitor may already
  // have typed: keep what the fields hold when the form comes alive (before anything is handled).
  useLayoutEffect(() => {
    const fields = form.current?.elements
    if (!fields) return
    const typed = Object.fromEntries(
      (Object.keys(empty) as (keyof Values)[]).map((name) => {
        const field = fields.namedItem(name) as
          | HTMLInputElement
          | HTMLSelectElement
          | HTMLTextAreaElement
          | null
        return [name, field?.value ?? empty[name]]
      }),
    ) as Values
    setValues((current) =>
      (Object.keys(typed) as (keyof Values)[]).some((name) => typed[name] !== current[name])
        ? typed
        : current,
    )
  }, [])

  const update = (field: keyof Values) => (event: { target: { value: string } }) => {
    setValues((current) => ({ ...current, [field]: event.target.value }))
    setErrors((current) => ({ ...current, [field]: '' }))
  }

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    if (checking.current) return
    checking.current = true
    const schema = await loadSchema().then(
      (module) => module.ContactMessageSchema,
      () => undefined,
    )
    checking.current = false
    if (!schema) {
      setFailure(contactMessages.failed)
      setStatus('failed')
      return
    }
    const parsed = schema.safeParse(values)
    if (!parsed.success) {
      setErrors(zodFieldErrors(parsed.error))
      return
    }
    setStatus('sending')
    const result = await apiRequest<ContactReceipt>('/contact', {
      method: 'POST',
      body: parsed.data,
      auth: false,
    })
    if (result.success) {
      setValues(empty)
      setStatus('sent')
      return
    }
    setErrors(serverFieldErrors(result.errors))
    setFailure(result.code === 'RATE_LIMITED' && result.error ? result.error : contactMessages.failed)
    setStatus('failed')
  }

  return (
    <form
      ref={form}
      onSubmit={submit}
      onFocus={() => void loadSchema().catch(() => undefined)}
      noValidate
      className="space-y-5"
      aria-labelledby="contact-form-heading"
    >
      <h2 id="contact-form-heading" className="text-2xl font-bold text-white">
        Send us a message
      </h2>
      {status === 'sent' ? <Alert tone="success">{contactMessages.sent}</Alert> : null}
      {status === 'failed' ? <Alert tone="error">{failure}</Alert> : null}
      <div className="grid gap-5 sm:grid-cols-2">
        <TextField
          id="contact-name"
          label="Name"
          error={errors.name}
          name="name"
          autoComplete="name"
          value={values.name}
          onChange={update('name')}
        />
        <TextField
          id="contact-email"
          label="Email"
          error={errors.email}
          name="email"
          type="email"
          autoComplete="email"
          value={values.email}
          onChange={update('email')}
        />
      </div>
      <Field id="contact-subject" label="Subject" error={errors.subject}>
        <SelectInput
          id="contact-subject"
          name="subject"
          value={values.subject}
          onChange={update('subject')}
          error={errors.subject}
        >
          {CONTACT_SUBJECTS.map((subject) => (
            <option key={subject.value} value={subject.value}>
              {subject.label}
            </option>
          ))}
        </SelectInput>
      </Field>
      <Field
        id="contact-message"
        label="Message"
        error={errors.message}
        hint={`${values.message.length}/${CONTACT_MESSAGE_MAX}`}
      >
        <TextArea
          id="contact-message"
          name="message"
          rows={6}
          maxLength={CONTACT_MESSAGE_MAX}
          value={values.message}
          onChange={update('message')}
          error={errors.message}
          hasHint
        />
      </Field>
      <Button type="submit" disabled={status === 'sending'} className="w-full sm:w-auto">
        {status === 'sending' ? 'Sending...' : 'Send Message'}
      </Button>
    </form>
  )
}

export const contactFormIsland = defineIsland('contact-form', ContactForm)
