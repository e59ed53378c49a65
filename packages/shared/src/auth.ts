import { z } from 'zod'
import { text } from './text'

/** The account messages, word for word, for the register form and POST /auth/register alike. */
export const authMessages = {
  firstNameRequired: 'First name is required',
  lastNameRequired: 'Last name is required',
  emailRequired: 'Email is required',
  emailInvalid: 'Please enter a valid email',
  discordRequired: 'Discord username is required',
  passwordRequired: 'Password is required',
  passwordTooShort: 'Password must be at least 8 characters',
  passwordWeak: 'Password must contain uppercase, lowercase, number, and symbol',
  passwordsDiffer: 'Passwords do not match',
  termsRequired: 'You must agree to the terms',
  ageRequired: 'You must confirm you are 18+ years old',
  passwordHint: '8+ characters with uppercase, lowercase, number & symbol',
  forgotEmailRequired: 'Email is required',
  forgotEmailInvalid: 'Please enter a valid email address',
  forgotSentNote: "If an account with this email exists, you'll receive a password reset link shortly.",
  // Server answers (our own wording where the product text is left to the server).
  emailTaken: 'An account with this email already exists. Sign in or reset your password.',
  badCredentials: 'Invalid email or password',
  tooManyAttempts: 'Too many failed sign-in attempts. Please wait 15 minutes and try again.',
  sessionExpired: 'Your session has expired. Please sign in again.',
  resetLinkInvalid: 'This reset link has expired or has already been used. Please request a new one.',
  resetDone: 'Your password has been reset. Please sign in with your new password.',
  passwordChanged: 'Your password has been changed. Other devices have been signed out.',
  currentPasswordWrong: 'Your current password is incorrect',
  currentPasswordRequired: 'Enter your current password to change your email',
  forgotAccepted: "If an account with this email exists, you'll receive a password reset link shortly.",
  passwordTooCommon: 'This password is too common. Please choose another.',
} as const

/** The register form's primary interest options (value '' is the prompt). */
export const TRADING_INTERESTS = [
  { value: '', label: 'Select your primary interest' },
  { value: 'sports-betting', label: 'Sports Betting' },
  { value: 'stock-trading', label: 'Stock Trading' },
  { value: 'cryptocurrency', label: 'Cryptocurrency' },
  { value: 'fantasy-sports', label: 'Fantasy Sports' },
  { value: 'all-markets', label: 'All Markets' },
] as const
export const TRADING_INTEREST_VALUES = [
  'sports-betting',
  'stock-trading',
  'cryptocurrency',
  'fantasy-sports',
  'all-markets',
] as const

/** At least 8 characters with upper, lower, digit and one of @$!%*?&. */
const STRONG_PASSWORD = /^(?=.*[a-z])(?=.*[A-Z])(?=.*\d)(?=.*[@$!%*?&]).+$/

const requiredText = (message: string, max: number) =>
  text({ error: message }).trim().min(1, message).max(max, `Must be ${max} characters or less`)

export const EmailSchema = text({ error: authMessages.emailRequired })
  .trim()
  .min(1, authMessages.emailRequired)
  .max(254, authMessages.emailInvalid)
  .pipe(z.email(authMessages.emailInvalid))

export const NewPasswordSchema = text({ error: authMessages.passwordRequired })
  .min(1, authMessages.passwordRequired)
  .min(8, authMessages.passwordTooShort)
  .max(128, 'Password must be 128 characters or less')
  .regex(STRONG_PASSWORD, authMessages.passwordWeak)

export const NameSchema = (message: string) => requiredText(message, 60)
export const DiscordUsernameSchema = requiredText(authMessages.discordRequired, 64)

const registerFields = {
  firstName: NameSchema(authMessages.firstNameRequired),
  lastName: NameSchema(authMessages.lastNameRequired),
  email: EmailSchema,
  discordUsername: DiscordUsernameSchema,
  password: NewPasswordSchema,
}

/**
 * POST /auth/register. Five fields are required; the form's others are accepted too. Consent boxes
 * may be omitted by API clients, but a box sent unchecked is refused with the form's message.
 */
export const RegisterRequestSchema = z.object({
  ...registerFields,
  confirmPassword: text().max(128).optional(),
  tradingInterests: z.enum(TRADING_INTEREST_VALUES).or(z.literal('')).optional(),
  emailUpdates: z.boolean().optional(),
  agreeToTerms: z.literal(true, { error: authMessages.termsRequired }).optional(),
  ageConfirmation: z.literal(true, { error: authMessages.ageRequired }).optional(),
})
export type RegisterRequest = z.infer<typeof RegisterRequestSchema>

/** The register form: every rule, in the order the fields appear. */
export const RegisterFormSchema = z
  .object({
    ...registerFields,
    confirmPassword: z.string(),
    tradingInterests: z.string(),
    emailUpdates: z.boolean(),
    agreeToTerms: z.boolean().refine((value) => value, authMessages.termsRequired),
    ageConfirmation: z.boolean().refine((value) => value, authMessages.ageRequired),
  })
  .refine((form) => form.password === form.confirmPassword, {
    path: ['confirmPassword'],
    message: authMessages.passwordsDiffer,
  })
export type RegisterForm = z.infer<typeof RegisterFormSchema>

export const LoginRequestSchema = z.object({
  email: text({ error: authMessages.emailRequired }).trim().min(1, authMessages.emailRequired).max(254),
  password: text({ error: authMessages.passwordRequired }).min(1, authMessages.passwordRequired).max(128),
  rememberMe: z.boolean().optional(),
})

export const ForgotPasswordSchema = z.object({
  email: text({ error: authMessages.forgotEmailRequired })
    .trim()
    .min(1, authMessages.forgotEmailRequired)
    .max(254, authMessages.forgotEmailInvalid)
    .pipe(z.email(authMessages.forgotEmailInvalid)),
})

export const ResetPasswordSchema = z.object({
  token: text().min(1, authMessages.resetLinkInvalid).max(200, authMessages.resetLinkInvalid),
  password: NewPasswordSchema,
})

export const RefreshTokenSchema = z.object({ refreshToken: text().min(1).max(200) })

export const ChangePasswordSchema = z.object({
  currentPassword: text().min(1, authMessages.currentPasswordWrong).max(128),
  newPassword: NewPasswordSchema,
})

export const UpdateProfileSchema = z.object({
  firstName: NameSchema(authMessages.firstNameRequired).optional(),
  lastName: NameSchema(authMessages.lastNameRequired).optional(),
  discordUsername: DiscordUsernameSchema.optional(),
  tradingInterests: z.enum(TRADING_INTEREST_VALUES).or(z.literal('')).nullable().optional(),
  emailUpdates: z.boolean().optional(),
  email: EmailSchema.optional(),
  /** Required when the email changes. */
  currentPassword: text().max(128).optional(),
})
export type UpdateProfile = z.infer<typeof UpdateProfileSchema>

export const USER_ROLES = ['member', 'analyst', 'admin'] as const
export type UserRole = (typeof USER_ROLES)[number]

/** A user as the API returns it and the browser stores it (never a hash or token). */
export const PublicUserSchema = z.object({
  id: z.string(),
  _id: z.string(),
  email: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  discordUsername: z.string(),
  role: z.enum(USER_ROLES),
  tradingInterests: z.string().nullable(),
  emailUpdates: z.boolean(),
  createdAt: z.string(),
})
export type PublicUser = z.infer<typeof PublicUserSchema>

export const TokensSchema = z.object({ accessToken: z.string(), refreshToken: z.string() })
export type Tokens = z.infer<typeof TokensSchema>

/** Register and sign in answer the user and a fresh session's tokens. */
export const AuthSessionSchema = z.object({ user: PublicUserSchema, tokens: TokensSchema })
export type AuthSession = z.infer<typeof AuthSessionSchema>

/** A refresh hands out a new access token and the next refresh token. */
export const RefreshedTokensSchema = TokensSchema
export const PasswordChangedSchema = z.object({ tokens: TokensSchema })
