import {
  AuthSessionSchema,
  authMessages,
  ChangePasswordSchema,
  ForgotPasswordSchema,
  LoginRequestSchema,
  PasswordChangedSchema,
  PublicUserSchema,
  RefreshTokenSchema,
  RegisterRequestSchema,
  ResetPasswordSchema,
  TokensSchema,
  UpdateProfileSchema,
} from '@edgeclub/shared'
import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { envelope, MessageEnvelopeSchema, ok } from '../../lib/envelope'
import { SAMPLED_LOG } from '../../lib/hot-route'
import { authOf } from '../../plugins/auth'
import type { AuthService, ClientMeta } from './auth-service'

const SessionResponse = envelope(AuthSessionSchema)

export interface AuthRouteLimits {
  loginPer15Min: number
  registerPerHour: number
  forgotPerHour: number
  resetPerHour: number
  refreshPerMinute: number
}

const meta = (request: FastifyRequest): ClientMeta => ({
  ip: request.ip,
  log: request.log,
  userAgent: request.headers['user-agent']?.slice(0, 300) ?? null,
})

export const authRoutes: FastifyPluginAsyncZod<{
  auth: AuthService
  limits: AuthRouteLimits
}> = async (app, { auth, limits }) => {
  const tags = ['auth']
  const secured = [{ bearerAuth: [] }]

  app.post(
    '/auth/register',
    {
      config: { rateLimit: { max: limits.registerPerHour, timeWindow: '1 hour' } },
      schema: {
        tags,
        summary: 'Create an account',
        body: RegisterRequestSchema,
        response: { 201: SessionResponse },
      },
    },
    async (request, reply) => {
      const result = await auth.register(request.body, meta(request))
      return reply.status(201).send(ok(result, 'Welcome to EdgeClub!'))
    },
  )

  app.post(
    '/auth/login',
    {
      config: { rateLimit: { max: limits.loginPer15Min, timeWindow: '15 minutes' } },
      schema: { tags, summary: 'Sign in', body: LoginRequestSchema, response: { 200: SessionResponse } },
    },
    async (request) => ok(await auth.login(request.body, meta(request)), 'Signed in'),
  )

  app.post(
    '/auth/refresh-token',
    {
      config: { rateLimit: { max: limits.refreshPerMinute, timeWindow: '1 minute' } },
      schema: {
        tags,
        summary: 'Trade a refresh token for a new access token (the refresh token rotates)',
        body: RefreshTokenSchema,
        response: { 200: envelope(TokensSchema) },
      },
    },
    async (request) => ok(await auth.refresh(request.body.refreshToken, request)),
  )

  app.post(
    '/auth/logout',
    {
      onRequest: app.requireAuth,
      schema: {
        tags,
        security: secured,
        summary: 'Sign out this device',
        response: { 200: MessageEnvelopeSchema },
      },
    },
    async (request) => {
      await auth.logout(authOf(request))
      return { success: true as const, message: 'Signed out' }
    },
  )

  app.post(
    '/auth/logout-all',
    {
      onRequest: app.requireAuth,
      schema: {
        tags,
        security: secured,
        summary: 'Sign out every device',
        response: { 200: MessageEnvelopeSchema },
      },
    },
    async (request) => {
      await auth.logoutAll(authOf(request).user.id)
      return { success: true as const, message: 'Signed out of every device' }
    },
  )

  app.get(
    '/auth/profile',
    {
      ...SAMPLED_LOG,
      onRequest: app.requireAuth,
      schema: {
        tags,
        security: secured,
        summary: 'The signed-in user',
        response: { 200: envelope(PublicUserSchema) },
      },
    },
    async (request) => ok(await auth.profile(authOf(request).user.id)),
  )

  app.put(
    '/auth/profile',
    {
      onRequest: app.requireAuth,
      schema: {
        tags,
        security: secured,
        summary: 'Update the profile',
        body: UpdateProfileSchema,
        response: { 200: envelope(PublicUserSchema) },
      },
    },
    async (request) => ok(await auth.updateProfile(authOf(request).user, request.body), 'Profile updated'),
  )

  app.put(
    '/auth/password',
    {
      onRequest: app.requireAuth,
      config: { rateLimit: { max: limits.resetPerHour, timeWindow: '1 hour' } },
      schema: {
        tags,
        security: secured,
        summary: 'Change the password (signs out every other device)',
        body: ChangePasswordSchema,
        response: { 200: envelope(PasswordChangedSchema) },
      },
    },
    async (request) => {
      const tokens = await auth.changePassword(authOf(request), request.body, meta(request))
      return ok({ tokens }, authMessages.passwordChanged)
    },
  )

  app.post(
    '/auth/forgot-password',
    {
      config: { rateLimit: { max: limits.forgotPerHour, timeWindow: '1 hour' } },
      schema: {
        tags,
        summary: 'Email a reset link if the account exists',
        body: ForgotPasswordSchema,
        response: { 200: MessageEnvelopeSchema },
      },
    },
    async (request) => {
      await auth.requestPasswordReset(request.body.email, request)
      return { success: true as const, message: authMessages.forgotAccepted }
    },
  )

  app.post(
    '/auth/reset-password',
    {
      config: { rateLimit: { max: limits.resetPerHour, timeWindow: '1 hour' } },
      schema: {
        tags,
        summary: 'Set a new password with a reset link',
        body: ResetPasswordSchema,
        response: { 200: MessageEnvelopeSchema },
      },
    },
    async (request) => {
      await auth.resetPassword(request.body.token, request.body.password, request)
      return { success: true as const, message: authMessages.resetDone }
    },
  )
}
