import { signalMessages, type UserRole } from '@edgeclub/shared'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { forbidden, unauthorized } from '../lib/errors'
import type { AuthContext, AuthService } from '../modules/auth/auth-service'

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by requireAuth: the signed-in user and their session. */
    auth: AuthContext | null
  }
  interface FastifyInstance {
    requireAuth: (request: FastifyRequest, reply: FastifyReply) => Promise<void>
    requireAdmin: (request: FastifyRequest, reply: FastifyReply) => Promise<void>
    /** Admins and analysts: who may publish and settle signals. */
    requireSignalAuthor: (request: FastifyRequest, reply: FastifyReply) => Promise<void>
  }
}

function bearer(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization
  if (!header) return undefined
  const [scheme, token] = header.split(' ')
  return scheme?.toLowerCase() === 'bearer' && token ? token : undefined
}

/** Route guards: a bearer access token of a live session (401), and the admin role on the server (403). */
export default fp(
  async (app: FastifyInstance, options: { auth: AuthService }) => {
    app.decorateRequest('auth', null)

    const requireAuth = async (request: FastifyRequest) => {
      const token = bearer(request)
      if (!token) throw unauthorized('Please sign in to continue')
      const context = await options.auth.authenticate(token)
      if (!context) throw unauthorized('Your session has expired. Please sign in again.')
      request.auth = context
    }

    app.decorate('requireAuth', requireAuth)
    const requireRole = (roles: UserRole[], message: string) => async (request: FastifyRequest) => {
      await requireAuth(request)
      const role = request.auth?.user.role
      if (!role || !roles.includes(role)) throw forbidden(message)
    }
    app.decorate('requireAdmin', requireRole(['admin'], 'This area is for administrators only'))
    app.decorate('requireSignalAuthor', requireRole(['admin', 'analyst'], signalMessages.forbidden))
  },
  { name: 'auth' },
)

/** The signed-in context of a guarded route (requireAuth ran before the handler). */
export function authOf(request: FastifyRequest): AuthContext {
  if (!request.auth) throw unauthorized()
  return request.auth
}
