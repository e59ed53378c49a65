import { paths } from '@edgeclub/shared'
import { type FormEvent, useEffect, useState } from 'react'
import { Link, Navigate, useLocation, useNavigate } from 'react-router'
import { Button } from '../components/ui/button'
import { Alert, Field, TextField } from '../components/ui/field'
import { PasswordInput } from '../components/ui/password-input'
import { login } from '../features/auth/auth-api'
import { AuthCard } from '../features/auth/auth-card'
import {
  type CheckoutStartState,
  checkoutOf,
  type DashboardState,
  type LoginState,
} from '../lib/navigation-state'
import { seo } from '../lib/seo'
import { session } from '../lib/session-store'
import { STORAGE_KEYS } from '../lib/storage-keys'
import { useSession } from '../lib/use-session'

export function meta() {
  return seo('Sign in', 'Sign in to your EdgeClub dashboard.')
}

export default function Login() {
  const navigate = useNavigate()
  const location = useLocation()
  const incoming = (location.state ?? null) as LoginState | null
  const { isAuthenticated, loading, error } = useSession()
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [remember, setRemember] = useState(() => localStorage.getItem(STORAGE_KEYS.rememberMe) === 'true')
  const [signedIn, setSignedIn] = useState(false)

  // A fresh screen shows no error left over from elsewhere.
  useEffect(() => session.setError(null), [])

  // Coming from Pricing: carry on to the checkout of the plan the visitor chose (and their code).
  const checkout = checkoutOf(incoming)
  if (isAuthenticated && !signedIn) {
    if (checkout)
      return <Navigate to={paths.payment} replace state={{ checkout } satisfies CheckoutStartState} />
    return <Navigate to={paths.dashboard} replace />
  }

  const authenticating = loading.auth
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    if (!email || !password || authenticating) return
    setSignedIn(true)
    const result = await login(email, password, remember)
    if (!result.success || !result.data) {
      setSignedIn(false)
      return
    }
    const user = result.data.user
    if (checkout) {
      navigate(paths.payment, { replace: true, state: { checkout } satisfies CheckoutStartState })
      return
    }
    const state: DashboardState = {
      message: `Welcome back, ${user.firstName || user.email}!`,
      type: 'success',
    }
    navigate(paths.dashboard, { replace: true, state })
  }

  return (
    <AuthCard title="Sign in to EdgeClub" intro="Your picks, signals and community are waiting.">
      <form onSubmit={submit} noValidate className="space-y-5">
        {error ? <Alert tone="error">{error.message}</Alert> : null}
        {!error && incoming?.message ? (
          <Alert tone={incoming.type ?? 'info'}>{incoming.message}</Alert>
        ) : null}
        <TextField
          id="login-email"
          label="Email"
          type="email"
          name="email"
          autoComplete="email"
          value={email}
          onChange={(event) => setEmail(event.target.value)}
        />
        <Field id="login-password" label="Password">
          <PasswordInput
            id="login-password"
            name="password"
            autoComplete="current-password"
            value={password}
            onChange={(event) => setPassword(event.target.value)}
          />
        </Field>
        <div className="flex items-center justify-between gap-4 text-sm">
          <label className="flex items-center gap-2 text-slate-200">
            <input
              type="checkbox"
              checked={remember}
              onChange={(event) => setRemember(event.target.checked)}
              className="h-4 w-4 accent-emerald-400"
            />
            Remember me
          </label>
          <Link to={paths.forgotPassword} className="font-medium text-emerald-300 hover:underline">
            Forgot password?
          </Link>
        </div>
        <Button type="submit" className="w-full" disabled={!email || !password || authenticating}>
          {authenticating ? 'Signing In...' : 'Sign In to Dashboard'}
        </Button>
      </form>
      <p className="mt-6 text-center text-sm text-slate-300">
        New to EdgeClub? {/* The chosen plan and code go along to registration too. */}
        <Link
          to={paths.register}
          state={checkout ? incoming : undefined}
          className="font-semibold text-emerald-300 hover:underline"
        >
          Create an account
        </Link>
      </p>
    </AuthCard>
  )
}
