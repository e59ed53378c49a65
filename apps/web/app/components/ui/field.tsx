import type { InputHTMLAttributes, ReactNode, SelectHTMLAttributes, TextareaHTMLAttributes } from 'react'

export const inputClasses =
  'block w-full rounded-lg border border-slate-700 bg-slate-950 px-3 py-2.5 text-slate-100 placeholder:text-slate-500 focus:border-emerald-400 focus:outline-none focus:ring-2 focus:ring-emerald-400/40 aria-[invalid=true]:border-rose-400'

/** A labelled control with its hint and error wired up for screen readers. */
export function Field({
  id,
  label,
  error,
  hint,
  children,
}: {
  id: string
  label: ReactNode
  error?: string
  hint?: ReactNode
  children: ReactNode
}) {
  return (
    <div>
      <label htmlFor={id} className="mb-1.5 block text-sm font-medium text-slate-200">
        {label}
      </label>
      {children}
      {hint && !error ? (
        <p id={`${id}-hint`} className="mt-1.5 text-xs text-slate-400">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={`${id}-error`} className="mt-1.5 text-sm text-rose-300">
          {error}
        </p>
      ) : null}
    </div>
  )
}

function describedBy(id: string, error?: string, hint?: boolean) {
  if (error) return `${id}-error`
  return hint ? `${id}-hint` : undefined
}

export function TextInput({
  id,
  error,
  hasHint,
  className = '',
  ...props
}: InputHTMLAttributes<HTMLInputElement> & { id: string; error?: string; hasHint?: boolean }) {
  return (
    <input
      id={id}
      aria-invalid={error ? true : undefined}
      aria-describedby={describedBy(id, error, hasHint)}
      className={`${inputClasses} ${className}`}
      {...props}
    />
  )
}

export function SelectInput({
  id,
  error,
  children,
  ...props
}: SelectHTMLAttributes<HTMLSelectElement> & { id: string; error?: string }) {
  return (
    <select
      id={id}
      aria-invalid={error ? true : undefined}
      aria-describedby={describedBy(id, error)}
      className={inputClasses}
      {...props}
    >
      {children}
    </select>
  )
}

export function TextArea({
  id,
  error,
  hasHint,
  ...props
}: TextareaHTMLAttributes<HTMLTextAreaElement> & { id: string; error?: string; hasHint?: boolean }) {
  return (
    <textarea
      id={id}
      aria-invalid={error ? true : undefined}
      aria-describedby={describedBy(id, error, hasHint)}
      className={inputClasses}
      {...props}
    />
  )
}

export function Alert({
  tone,
  children,
}: {
  tone: 'success' | 'error' | 'info' | 'warning'
  children: ReactNode
}) {
  const tones = {
    success: 'border-emerald-400/40 bg-emerald-400/10 text-emerald-100',
    error: 'border-rose-400/40 bg-rose-500/10 text-rose-100',
    info: 'border-sky-400/40 bg-sky-500/10 text-sky-100',
    warning: 'border-amber-400/40 bg-amber-500/10 text-amber-100',
  }
  return (
    <div
      role={tone === 'error' ? 'alert' : 'status'}
      className={`rounded-lg border px-4 py-3 text-sm ${tones[tone]}`}
    >
      {children}
    </div>
  )
}

/** A labelled text input: the label, hint and error are wired to the input once, by its id. */
export function TextField({
  id,
  label,
  error,
  hint,
  ...input
}: Omit<InputHTMLAttributes<HTMLInputElement>, 'id'> & {
  id: string
  label: ReactNode
  error?: string
  hint?: ReactNode
}) {
  return (
    <Field id={id} label={label} error={error} hint={hint}>
      <TextInput id={id} error={error} hasHint={Boolean(hint)} {...input} />
    </Field>
  )
}
