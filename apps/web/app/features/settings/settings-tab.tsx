import { authMessages, EmailSchema, NewPasswordSchema, paths, TRADING_INTERESTS } from '@edgeclub/shared'
import { type FormEvent, type ReactNode, useState } from 'react'
import { useNavigate } from 'react-router'
import { Button } from '../../components/ui/button'
import { Alert, Field, SelectInput, TextField } from '../../components/ui/field'
import { Panel } from '../../components/ui/panel'
import { PasswordInput } from '../../components/ui/password-input'
import { serverFieldErrors } from '../../lib/form-errors'
import { useSession } from '../../lib/use-session'
import { changePassword, logoutEverywhere, updateProfile } from './settings-api'

type Result = { tone: 'success' | 'error'; text: string } | null

function ProfileForm() {
  const { user } = useSession()
  const [values, setValues] = useState({
    firstName: user?.firstName ?? '',
    lastName: user?.lastName ?? '',
    discordUsername: user?.discordUsername ?? '',
    tradingInterests: user?.tradingInterests ?? '',
    emailUpdates: user?.emailUpdates ?? false,
  })
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [result, setResult] = useState<Result>(null)
  const [saving, setSaving] = useState(false)
  const set = (field: keyof typeof values, value: string | boolean) => {
    setValues((current) => ({ ...current, [field]: value }))
    setErrors((current) => ({ ...current, [field]: '' }))
    setResult(null)
  }

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    setSaving(true)
    const response = await updateProfile(values)
    setSaving(false)
    setErrors(serverFieldErrors(response.errors))
    setResult(
      response.success
        ? { tone: 'success', text: 'Your profile has been saved.' }
        : { tone: 'error', text: response.error ?? 'Could not save' },
    )
  }

  return (
    <form onSubmit={submit} noValidate className="space-y-4">
      {result ? <Alert tone={result.tone}>{result.text}</Alert> : null}
      <div className="grid gap-4 sm:grid-cols-2">
        <TextField
          id="settings-first-name"
          label="First name"
          error={errors.firstName}
          value={values.firstName}
          onChange={(e) => set('firstName', e.target.value)}
        />
        <TextField
          id="settings-last-name"
          label="Last name"
          error={errors.lastName}
          value={values.lastName}
          onChange={(e) => set('lastName', e.target.value)}
        />
      </div>
      <TextField
        id="settings-discord"
        label="Discord username"
        error={errors.discordUsername}
        value={values.discordUsername}
        onChange={(e) => set('discordUsername', e.target.value)}
      />
      <Field id="settings-interest" label="Primary interest">
        <SelectInput
          id="settings-interest"
          value={values.tradingInterests}
          onChange={(e) => set('tradingInterests', e.target.value)}
        >
          {TRADING_INTERESTS.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </SelectInput>
      </Field>
      <label className="flex items-center gap-2 text-sm text-slate-200">
        <input
          type="checkbox"
          checked={values.emailUpdates}
          onChange={(e) => set('emailUpdates', e.target.checked)}
          className="h-4 w-4 accent-emerald-400"
        />
        Send me trading insights and market updates via email
      </label>
      <Button type="submit" disabled={saving}>
        {saving ? 'Saving...' : 'Save Profile'}
      </Button>
    </form>
  )
}

function EmailForm() {
  const { user } = useSession()
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [result, setResult] = useState<Result>(null)
  const [saving, setSaving] = useState(false)

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const parsed = EmailSchema.safeParse(email)
    const next: Record<string, string> = {}
    if (!parsed.success) next.email = parsed.error.issues[0]?.message ?? authMessages.emailInvalid
    if (!password) next.currentPassword = authMessages.currentPasswordRequired
    setErrors(next)
    if (Object.keys(next).length > 0) return
    setSaving(true)
    const response = await updateProfile({ email, currentPassword: password })
    setSaving(false)
    setErrors(serverFieldErrors(response.errors))
    if (response.success) {
      setEmail('')
      setPassword('')
      setResult({ tone: 'success', text: `Your email is now ${response.data?.email}.` })
    } else {
      setResult({ tone: 'error', text: response.error ?? 'Could not change your email' })
    }
  }

  return (
    <form onSubmit={submit} noValidate className="space-y-4">
      {result ? <Alert tone={result.tone}>{result.text}</Alert> : null}
      <p className="text-sm text-slate-300">
        Current email: <strong className="text-white">{user?.email}</strong>
      </p>
      <TextField
        id="settings-new-email"
        label="New email"
        error={errors.email}
        type="email"
        value={email}
        onChange={(e) => setEmail(e.target.value)}
      />
      <Field id="settings-email-password" label="Current password" error={errors.currentPassword}>
        <PasswordInput
          id="settings-email-password"
          autoComplete="current-password"
          value={password}
          error={errors.currentPassword}
          onChange={(e) => setPassword(e.target.value)}
        />
      </Field>
      <Button type="submit" variant="secondary" disabled={saving}>
        {saving ? 'Saving...' : 'Change Email'}
      </Button>
    </form>
  )
}

function PasswordForm() {
  const [values, setValues] = useState({ current: '', next: '', confirm: '' })
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [result, setResult] = useState<Result>(null)
  const [saving, setSaving] = useState(false)

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const strength = NewPasswordSchema.safeParse(values.next)
    const next: Record<string, string> = {}
    if (!values.current) next.currentPassword = authMessages.currentPasswordWrong
    if (!strength.success) next.newPassword = strength.error.issues[0]?.message ?? authMessages.passwordWeak
    if (values.next !== values.confirm) next.confirm = authMessages.passwordsDiffer
    setErrors(next)
    if (Object.keys(next).length > 0) return
    setSaving(true)
    const response = await changePassword(values.current, values.next)
    setSaving(false)
    setErrors(serverFieldErrors(response.errors))
    if (response.success) {
      setValues({ current: '', next: '', confirm: '' })
      setResult({ tone: 'success', text: authMessages.passwordChanged })
    } else {
      setResult({ tone: 'error', text: response.error ?? 'Could not change your password' })
    }
  }

  return (
    <form onSubmit={submit} noValidate className="space-y-4">
      {result ? <Alert tone={result.tone}>{result.text}</Alert> : null}
      <Field id="settings-current-password" label="Current password" error={errors.currentPassword}>
        <PasswordInput
          id="settings-current-password"
          autoComplete="current-password"
          value={values.current}
          error={errors.currentPassword}
          onChange={(e) => setValues((v) => ({ ...v, current: e.target.value }))}
        />
      </Field>
      <Field
        id="settings-new-password"
        label="New password"
        error={errors.newPassword}
        hint={authMessages.passwordHint}
      >
        <PasswordInput
          id="settings-new-password"
          autoComplete="new-password"
          value={values.next}
          error={errors.newPassword}
          hasHint
          onChange={(e) => setValues((v) => ({ ...v, next: e.target.value }))}
        />
      </Field>
      <Field id="settings-confirm-password" label="Confirm new password" error={errors.confirm}>
        <PasswordInput
          id="settings-confirm-password"
          autoComplete="new-password"
          value={values.confirm}
          error={errors.confirm}
          onChange={(e) => setValues((v) => ({ ...v, confirm: e.target.value }))}
        />
      </Field>
      <Button type="submit" variant="secondary" disabled={saving}>
        {saving ? 'Saving...' : 'Change Password'}
      </Button>
    </form>
  )
}

function DevicesPanel() {
  const navigate = useNavigate()
  const [confirming, setConfirming] = useState(false)
  const [busy, setBusy] = useState(false)
  const signOutEverywhere = async () => {
    setBusy(true)
    await logoutEverywhere()
    navigate(paths.login, {
      replace: true,
      state: { message: 'You have been signed out on every device.', type: 'info' },
    })
  }
  return confirming ? (
    <fieldset className="flex flex-wrap items-center gap-3">
      <legend className="sr-only">Confirm signing out everywhere</legend>
      <p className="text-sm text-slate-200">Sign out on every device, including this one?</p>
      <Button variant="danger" onClick={signOutEverywhere} disabled={busy}>
        {busy ? 'Signing Out...' : 'Yes, sign out everywhere'}
      </Button>
      <Button variant="ghost" onClick={() => setConfirming(false)} disabled={busy}>
        Cancel
      </Button>
    </fieldset>
  ) : (
    <Button variant="secondary" onClick={() => setConfirming(true)}>
      Sign out of all devices
    </Button>
  )
}

/**
 * Settings: what members expect to manage themselves (profile, email, password, devices). Other
 * features' panels (the connected Discord account) come in through `panels`, composed by the route.
 */
export function SettingsTab({ panels }: { panels?: ReactNode } = {}) {
  return (
    <div className="grid gap-6 xl:grid-cols-2">
      {panels}
      <Panel title="Profile" description="Your name, Discord username and email preferences.">
        <ProfileForm />
      </Panel>
      <Panel title="Email address" description="Where we send receipts and reset links.">
        <EmailForm />
      </Panel>
      <Panel title="Password" description="Changing it signs out every other device.">
        <PasswordForm />
      </Panel>
      <Panel title="Devices" description="Lost a phone? End every session at once.">
        <DevicesPanel />
      </Panel>
    </div>
  )
}
