import http from 'node:http'
import type { Socket } from 'node:net'
import type { FieldError } from '@edgeclub/shared'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod'
import { isDatabaseUnavailable } from '../db/database'
import { AppError } from '../lib/errors'
import { securityEvent } from '../lib/security-log'

/** How long a client should wait before trying again while the database is away. */
const RETRY_AFTER_SECONDS = 5

/**
 * Turns every failure into the error envelope. Messages of AppErrors and of request-shape
 * errors are shown as they are; anything else is logged and answered with a request id only.
 */

function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  if (error.headers) reply.headers(error.headers)
  return reply.status(error.statusCode).send({
    success: false,
    error: error.code,
    message: error.message,
    ...(error.errors ? { errors: error.errors } : {}),
  })
}

/** A failure of ours: the request id to quote, nothing of the internals. */
function sendInternal(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return reply.status(500).send({
    success: false,
    error: 'INTERNAL',
    message: `Something went wrong on our side. Please try again; if it keeps happening, contact support with reference ${request.id}.`,
    requestId: request.id,
  })
}

function fieldName(instancePath: string, context: string | undefined): string {
  const field = instancePath.replace(/^\//, '').replaceAll('/', '.')
  return field || context || 'body'
}

/** Fastify's own request errors (body parsing, content type) as user-facing AppErrors. */
function fromFastifyError(error: FastifyError): AppError | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('VALIDATION_ERROR', 'The request body is too large (the limit is 1 MB)', {
        statusCode: 413,
      })
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('VALIDATION_ERROR', 'The request body is not valid JSON')
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('VALIDATION_ERROR', 'The request body is empty; send a JSON object')
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('VALIDATION_ERROR', 'Send the request body as application/json', {
        statusCode: 415,
      })
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('VALIDATION_ERROR', 'The request body does not match its Content-Length')
  }
  if (error instanceof SyntaxError && error.statusCode === 400) {
    return new AppError('VALIDATION_ERROR', 'The request body is not valid JSON')
  }
  return undefined
}

export default fp(
  async (app: FastifyInstance, options: { logStacks: boolean }) => {
    app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      if (error instanceof AppError) {
        if (error.statusCode === 403)
          securityEvent(request, 'access.forbidden', {
            userId: request.auth?.user.id ?? null,
            method: request.method,
            route: request.routeOptions.url ?? null,
          })
        return sendError(reply, error)
      }

      if (hasZodFastifySchemaValidationErrors(error)) {
        const errors: FieldError[] = error.validation.map((issue) => ({
          field: fieldName(issue.instancePath, error.validationContext),
          message: issue.message ?? 'Invalid value',
        }))
        return sendError(
          reply,
          new AppError('VALIDATION_ERROR', errors[0]?.message ?? 'Invalid request', { errors }),
        )
      }

      const known = fromFastifyError(error)
      if (known) return sendError(reply, known)

      if (error.statusCode === 429) {
        return sendError(
          reply,
          new AppError('RATE_LIMITED', 'Too many requests. Please wait a moment and try again.'),
        )
      }

      if (isDatabaseUnavailable(error)) {
        // The database is away (restart, failover, network): say so fast, so clients retry, not hang.
        request.log.warn({ err: { code: error.code, message: error.message } }, 'database unavailable')
        return sendError(
          reply,
          new AppError(
            'UPSTREAM_ERROR',
            'EdgeClub is briefly unavailable. Please try again in a few seconds.',
            {
              statusCode: 503,
              headers: { 'retry-after': String(RETRY_AFTER_SECONDS) },
            },
          ),
        )
      }

      const status = error.statusCode ?? 500
      if (status >= 400 && status < 500 && !isResponseSerializationError(error)) {
        // Fastify's client errors (e.g. a bad header) carry safe messages of their own.
        return sendError(reply, new AppError('VALIDATION_ERROR', error.message, { statusCode: status }))
      }

      request.log.error(
        {
          err: {
            type: error.name,
            code: error.code,
            message: error.message,
            ...(options.logStacks ? { stack: error.stack } : {}),
          },
        },
        'request failed',
      )
      return sendInternal(request, reply)
    })
  },
  { name: 'errors' },
)

/**
 * Requests Fastify refuses before any hook runs (a malformed URL, an over-long path parameter): the
 * envelope, with the request id and the security headers every other API answer carries.
 */
export function frameworkErrorHandler(headers: Record<string, string>) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    reply.headers(headers)
    reply.header('x-request-id', request.id)
    switch (error.code) {
      case 'FST_ERR_BAD_URL':
        return sendError(reply, new AppError('VALIDATION_ERROR', 'The request URL is malformed'))
      case 'FST_ERR_MAX_PARAM_LENGTH':
        return sendError(
          reply,
          new AppError('VALIDATION_ERROR', 'The request URL is too long', { statusCode: 414 }),
        )
    }
    request.log.error(
      { err: { type: error.name, code: error.code, message: error.message } },
      'request failed',
    )
    return sendInternal(request, reply)
  }
}

/** What Node's HTTP parser refused, as the envelope's status, code and message. */
function clientErrorAnswer(code: string | undefined): { status: number; message: string } {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return { status: 408, message: 'The request took too long to arrive' }
  if (code === 'HPE_HEADER_OVERFLOW') return { status: 431, message: 'The request headers are too large' }
  return { status: 400, message: 'The request is malformed' }
}

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (a malformed header line, a broken
 * chunked body, headers too large, a request that never finished arriving): the envelope with the
 * security headers every other API answer carries, then the connection is closed (its stream cannot be
 * trusted to continue). A connection already gone gets nothing.
 */
export function clientErrorHandler(headers: Record<string, string>) {
  return function (this: FastifyInstance, error: Error & { code?: string }, socket: Socket) {
    if (error.code === 'ECONNRESET' || socket.destroyed) return
    const { status, message } = clientErrorAnswer(error.code)
    const body = JSON.stringify({ success: false, error: 'VALIDATION_ERROR', message })
    this.log.info({ code: error.code ?? null, status }, 'refused a malformed request')
    // An answer already under way on this connection must not be corrupted: then the connection only closes.
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage
    if (socket.writable && !inFlight?.headersSent) {
      const lines = [
        `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'Bad Request'}`,
        ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
        'content-type: application/json; charset=utf-8',
        `content-length: ${Buffer.byteLength(body)}`,
        'cache-control: no-store',
        'connection: close',
      ]
      socket.write(`${lines.join('\r\n')}\r\n\r\n${body}`)
    }
    socket.destroySoon()
  }
}

/** The JSON 404 of the API. */
export function apiNotFound(request: FastifyRequest, reply: FastifyReply) {
  return sendError(
    reply,
    new AppError('NOT_FOUND', `No API route matches ${request.method} ${request.url.split('?')[0]}`),
  )
}
