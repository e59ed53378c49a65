import { authMessages, ForgotPasswordSchema, paths } from '@edgeclub/shared'
import { type FormEvent, useEffect, useState } from 'react'
import { Link } from 'react-router'
import { Button } from '../components/ui/button'
import { Alert, TextField } from '../components/ui/field'
import { forgotPassword } from '../features/auth/auth-api'
import { AuthCard } from '../features/auth/auth-card'
import { zodFieldErrors } from '../lib/form-errors'
import { seo } from '../lib/seo'
import { session } from '../lib/session-store'
import { useSession } from '../lib/use-session'

export function meta() {
  return seo('Forgot password', 'Get a link to reset your EdgeClub password.')
}

/** Forgot password: form, then sent, then back to the form. */
export default function ForgotPassword() {
  const { loading, error } = useSession()
  const [email, setEmail] = useState('')
  const [fieldError, setFieldError] = useState('')
  const [sentTo, setSentTo] = useState<string | null>(null)

  useEffect(() => session.setError(null), [])

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const parsed = ForgotPasswordSchema.safeParse({ email })
    if (!parsed.success) {
      setFieldError(zodFieldErrors(parsed.error).email ?? '')
      return
    }
    const result = await forgotPassword(parsed.data.email)
    if (result.success) setSentTo(parsed.data.email)
  }

  if (sentTo) {
    return (
      <AuthCard title="Check Your Email">
        <div className="space-y-4 text-sm text-slate-200">
          <p>
            We sent a reset link to <strong className="text-white">{sentTo}</strong>.
          </p>
          <p className="text-slate-300">{authMessages.forgotSentNote}</p>
          <div className="flex flex-wrap gap-3 pt-2">
            <Link to={paths.login} className="font-semibold text-emerald-300 hover:underline">
              Back to Sign In
            </Link>
          </div>
          <Button variant="secondary" className="w-full" onClick={() => setSentTo(null)}>
            Send Another Email
          </Button>
        </div>
      </AuthCard>
    )
  }

  return (
    <AuthCard
      title="Forgot your password?"
      intro="Enter your email and we'll send you a link to choose a new one."
    >
      <form onSubmit={submit} noValidate className="space-y-5">
        {error ? <Alert tone="error">{error.message}</Alert> : null}
        <TextField
          id="forgot-email"
          label="Email"
          error={fieldError}
          name="email"
          type="email"
          autoComplete="email"
          value={email}
          onChange={(event) => {
            setEmail(event.target.value)
            setFieldError('')
          }}
        />
        <Button type="submit" className="w-full" disabled={loading.auth}>
          {loading.auth ? 'Sending...' : 'Send Reset Link'}
        </Button>
      </form>
      <p className="mt-6 text-center text-sm">
        <Link to={paths.login} className="font-semibold text-emerald-300 hover:underline">
          Back to Sign In
        </Link>
      </p>
    </AuthCard>
  )
}
