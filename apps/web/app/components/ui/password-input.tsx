import { type InputHTMLAttributes, useState } from 'react'
import { inputClasses } from './field'

/** A password field with a show/hide toggle; the toggle says 'Show' or 'Hide' and names the field for screen readers. */
export function PasswordInput({
  id,
  error,
  hasHint,
  ...props
}: InputHTMLAttributes<HTMLInputElement> & { id: string; error?: string; hasHint?: boolean }) {
  const [visible, setVisible] = useState(false)
  const describedBy = error ? `${id}-error` : hasHint ? `${id}-hint` : undefined
  return (
    <div className="relative">
      <input
        id={id}
        type={visible ? 'text' : 'password'}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy}
        className={`${inputClasses} pr-16`}
        {...props}
      />
      <button
        type="button"
        onClick={() => setVisible((shown) => !shown)}
        aria-pressed={visible}
        aria-controls={id}
        className="absolute inset-y-0 right-0 flex items-center rounded-r-lg px-3 text-xs font-semibold text-slate-300 hover:text-white"
      >
        {visible ? 'Hide' : 'Show'}
        <span className="sr-only"> password</span>
      </button>
    </div>
  )
}
