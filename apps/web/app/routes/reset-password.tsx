import { authMessages, NewPasswordSchema, paths } from '@edgeclub/shared'
import { type FormEvent, useState } from 'react'
import { Link, useNavigate, useSearchParams } from 'react-router'
import { Button } from '../components/ui/button'
import { Alert, Field } from '../components/ui/field'
import { PasswordInput } from '../components/ui/password-input'
import { resetPassword } from '../features/auth/auth-api'
import { AuthCard } from '../features/auth/auth-card'
import type { LoginState } from '../lib/navigation-state'
import { seo } from '../lib/seo'
import { useSession } from '../lib/use-session'

export function meta() {
  return seo('Choose a new password', 'Set a new password for your EdgeClub account.')
}

export default function ResetPassword() {
  const navigate = useNavigate()
  const [params] = useSearchParams()
  const token = params.get('token') ?? ''
  const { loading } = useSession()
  const [password, setPassword] = useState('')
  const [confirm, setConfirm] = useState('')
  const [errors, setErrors] = useState<{ password?: string; confirm?: string }>({})
  const [linkProblem, setLinkProblem] = useState<string | null>(token ? null : authMessages.resetLinkInvalid)

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const parsed = NewPasswordSchema.safeParse(password)
    const next = {
      password: parsed.success ? undefined : parsed.error.issues[0]?.message,
      confirm: password === confirm ? undefined : authMessages.passwordsDiffer,
    }
    setErrors(next)
    if (next.password || next.confirm) return
    const result = await resetPassword(token, password)
    if (result.success) {
      const state: LoginState = { message: authMessages.resetDone, type: 'success' }
      navigate(paths.login, { replace: true, state })
      return
    }
    const tokenProblem = result.errors?.some((error) => error.field === 'token')
    if (tokenProblem) setLinkProblem(result.error ?? authMessages.resetLinkInvalid)
    else setErrors({ password: result.error })
  }

  if (linkProblem) {
    return (
      <AuthCard title="This link can't be used">
        <Alert tone="error">{linkProblem}</Alert>
        <p className="mt-6 text-sm">
          <Link to={paths.forgotPassword} className="font-semibold text-emerald-300 hover:underline">
            Send me a new reset link
          </Link>
        </p>
      </AuthCard>
    )
  }

  return (
    <AuthCard
      title="Choose a new password"
      intro="Every device signed in with the old password will be signed out."
    >
      <form onSubmit={submit} noValidate className="space-y-5">
        <Field
          id="new-password"
          label="New password"
          error={errors.password}
          hint={authMessages.passwordHint}
        >
          <PasswordInput
            id="new-password"
            autoComplete="new-password"
            value={password}
            error={errors.password}
            hasHint
            onChange={(event) => {
              setPassword(event.target.value)
              setErrors((current) => ({ ...current, password: undefined }))
            }}
          />
        </Field>
        <Field id="confirm-new-password" label="Confirm new password" error={errors.confirm}>
          <PasswordInput
            id="confirm-new-password"
            autoComplete="new-password"
            value={confirm}
            error={errors.confirm}
            onChange={(event) => {
              setConfirm(event.target.value)
              setErrors((current) => ({ ...current, confirm: undefined }))
            }}
          />
        </Field>
        <Button type="submit" className="w-full" disabled={loading.auth}>
          {loading.auth ? 'Saving...' : 'Set New Password'}
        </Button>
      </form>
    </AuthCard>
  )
}
