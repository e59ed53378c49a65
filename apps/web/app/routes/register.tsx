import {
  authMessages,
  paths,
  type RegisterForm,
  RegisterFormSchema,
  type ShownClaims,
  site,
  TRADING_INTERESTS,
} from '@edgeclub/shared'
import { QueryClientProvider } from '@tanstack/react-query'
import { type FormEvent, useEffect, useState } from 'react'
import { Link, Navigate, useLocation, useNavigate } from 'react-router'
import { Claim } from '../components/claim'
import { Button } from '../components/ui/button'
import { Alert, Field, SelectInput, TextField } from '../components/ui/field'
import { CheckIcon } from '../components/ui/icons'
import { PasswordInput } from '../components/ui/password-input'
import { register } from '../features/auth/auth-api'
import { useClaims } from '../lib/claims-api'
import { serverFieldErrors, zodFieldErrors } from '../lib/form-errors'
import {
  type CheckoutStartState,
  checkoutOf,
  type DashboardState,
  type LoginState,
} from '../lib/navigation-state'
import { queryClient } from '../lib/query-client'
import { seo } from '../lib/seo'
import { session } from '../lib/session-store'
import { useSession } from '../lib/use-session'

export function meta() {
  return seo(
    'Create your account',
    `Join ${site.name}: AI sports picks, trading signals and a private Discord community.`,
  )
}

const empty: RegisterForm = {
  firstName: '',
  lastName: '',
  email: '',
  discordUsername: '',
  password: '',
  confirmPassword: '',
  tradingInterests: '',
  emailUpdates: false,
  agreeToTerms: false,
  ageConfirmation: false,
}

const benefits = (claims: ShownClaims | undefined) => [
  <>
    AI-driven picks with a <Claim name="winRate" text={claims?.winRate} /> win rate
    {claims?.fromRecord ? (
      <>
        {' '}
        (<Claim name="trackRecord" text={claims.trackRecord} />, <Link to={paths.record}>see the record</Link>
        )
      </>
    ) : null}
  </>,
  'Blockchain integration for secure crypto payments',
  '24/7 support from people who bet and trade',
  'Mobile-first: signals wherever you are',
]

/** The page reads the owner's claims through react-query, so it brings its own provider. */
export default function Register() {
  return (
    <QueryClientProvider client={queryClient}>
      <RegisterPage />
    </QueryClientProvider>
  )
}

function RegisterPage() {
  const navigate = useNavigate()
  const claims = useClaims()
  const location = useLocation()
  // Coming from Pricing (through sign-in): after registering, the checkout of the chosen plan follows.
  const incoming = (location.state ?? null) as LoginState | null
  const checkout = checkoutOf(incoming)
  const { isAuthenticated, loading, error } = useSession()
  const [form, setForm] = useState<RegisterForm>(empty)
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [done, setDone] = useState(false)

  useEffect(() => session.setError(null), [])
  if (isAuthenticated && !done) {
    if (checkout)
      return <Navigate to={paths.payment} replace state={{ checkout } satisfies CheckoutStartState} />
    return <Navigate to={paths.dashboard} replace />
  }

  // Each field's error clears when that field is edited.
  const set = <K extends keyof RegisterForm>(field: K, value: RegisterForm[K]) => {
    setForm((current) => ({ ...current, [field]: value }))
    setErrors((current) => (current[field] ? { ...current, [field]: '' } : current))
  }
  const text = (field: keyof RegisterForm) => (event: { target: { value: string } }) =>
    set(field, event.target.value as never)
  const check =
    (field: 'emailUpdates' | 'agreeToTerms' | 'ageConfirmation') =>
    (event: { target: { checked: boolean } }) =>
      set(field, event.target.checked)

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const parsed = RegisterFormSchema.safeParse(form)
    if (!parsed.success) {
      setErrors(zodFieldErrors(parsed.error))
      return
    }
    setDone(true)
    const result = await register(parsed.data)
    if (!result.success || !result.data) {
      setDone(false)
      setErrors(serverFieldErrors(result.errors))
      return
    }
    const welcome = `Welcome to ${site.name}, ${result.data.user.firstName}!`
    if (checkout) {
      const state: CheckoutStartState = { checkout, message: welcome, type: 'success' }
      navigate(paths.payment, { replace: true, state })
      return
    }
    const state: DashboardState = { message: welcome, type: 'success' }
    navigate(paths.dashboard, { replace: true, state })
  }

  const submitting = loading.auth
  return (
    <div className="mx-auto grid w-full max-w-5xl gap-8 px-4 py-12 lg:grid-cols-5">
      <section className="rounded-2xl border border-slate-800 bg-slate-900/80 p-6 shadow-xl sm:p-8 lg:col-span-3">
        <h1 className="text-2xl font-bold text-white">Create your account</h1>
        <p className="mt-2 text-sm text-slate-300">
          {checkout
            ? 'It takes a minute; your checkout follows.'
            : 'It takes a minute. Choose a plan afterwards.'}
        </p>
        <form onSubmit={submit} noValidate className="mt-6 space-y-5">
          {error ? <Alert tone="error">{error.message}</Alert> : null}
          <div className="grid gap-5 sm:grid-cols-2">
            <TextField
              id="firstName"
              label="First name"
              error={errors.firstName}
              name="firstName"
              autoComplete="given-name"
              value={form.firstName}
              onChange={text('firstName')}
            />
            <TextField
              id="lastName"
              label="Last name"
              error={errors.lastName}
              name="lastName"
              autoComplete="family-name"
              value={form.lastName}
              onChange={text('lastName')}
            />
          </div>
          <TextField
            id="email"
            label="Email"
            error={errors.email}
            name="email"
            type="email"
            autoComplete="email"
            value={form.email}
            onChange={text('email')}
          />
          <TextField
            id="discordUsername"
            label="Discord username"
            error={errors.discordUsername}
            name="discordUsername"
            autoComplete="off"
            value={form.discordUsername}
            onChange={text('discordUsername')}
          />
          <Field id="password" label="Password" error={errors.password} hint={authMessages.passwordHint}>
            <PasswordInput
              id="password"
              name="password"
              autoComplete="new-password"
              value={form.password}
              onChange={text('password')}
              error={errors.password}
              hasHint
            />
          </Field>
          <Field id="confirmPassword" label="Confirm password" error={errors.confirmPassword}>
            <PasswordInput
              id="confirmPassword"
              name="confirmPassword"
              autoComplete="new-password"
              value={form.confirmPassword}
              onChange={text('confirmPassword')}
              error={errors.confirmPassword}
            />
          </Field>
          <Field id="tradingInterests" label="Primary interest">
            <SelectInput
              id="tradingInterests"
              name="tradingInterests"
              value={form.tradingInterests}
              onChange={text('tradingInterests')}
            >
              {TRADING_INTERESTS.map((option) => (
                <option key={option.value} value={option.value}>
                  {option.label}
                </option>
              ))}
            </SelectInput>
          </Field>
          <fieldset className="space-y-3">
            <legend className="sr-only">Agreements</legend>
            <Checkbox
              id="agreeToTerms"
              checked={form.agreeToTerms}
              onChange={check('agreeToTerms')}
              error={errors.agreeToTerms}
            >
              I agree to the Terms of Service and Privacy Policy
            </Checkbox>
            <Checkbox id="emailUpdates" checked={form.emailUpdates} onChange={check('emailUpdates')}>
              Send me trading insights and market updates via email
            </Checkbox>
            <Checkbox
              id="ageConfirmation"
              checked={form.ageConfirmation}
              onChange={check('ageConfirmation')}
              error={errors.ageConfirmation}
            >
              I confirm I am 18+ years old and legally authorized to trade
            </Checkbox>
          </fieldset>
          <Button type="submit" className="w-full" disabled={submitting}>
            {submitting ? 'Creating Account...' : 'Create Account'}
          </Button>
        </form>
        <p className="mt-6 text-center text-sm text-slate-300">
          Already a member?{' '}
          <Link
            to={paths.login}
            state={checkout ? incoming : undefined}
            className="font-semibold text-emerald-300 hover:underline"
          >
            Sign in
          </Link>
        </p>
      </section>
      <aside
        aria-labelledby="benefits-heading"
        className="rounded-2xl border border-emerald-400/30 bg-emerald-400/5 p-6 lg:col-span-2"
      >
        <h2 id="benefits-heading" className="text-lg font-semibold text-white">
          Why members join
        </h2>
        <ul className="mt-4 space-y-3">
          {benefits(claims).map((benefit, index) => (
            <li
              key={typeof benefit === 'string' ? benefit : `claim-${index}`}
              className="flex gap-2 text-sm text-slate-200"
            >
              <CheckIcon className="h-5 w-5 shrink-0 text-emerald-300" />
              {benefit}
            </li>
          ))}
        </ul>
      </aside>
    </div>
  )
}

function Checkbox({
  id,
  checked,
  onChange,
  error,
  children,
}: {
  id: string
  checked: boolean
  onChange: (event: { target: { checked: boolean } }) => void
  error?: string
  children: string
}) {
  return (
    <div>
      <label htmlFor={id} className="flex items-start gap-2 text-sm text-slate-200">
        <input
          id={id}
          type="checkbox"
          checked={checked}
          onChange={onChange}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
          className="mt-0.5 h-4 w-4 accent-emerald-400"
        />
        {children}
      </label>
      {error ? (
        <p id={`${id}-error`} className="mt-1 text-sm text-rose-300">
          {error}
        </p>
      ) : null}
    </div>
  )
}
