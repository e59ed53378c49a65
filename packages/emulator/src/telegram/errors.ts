/**
 * The Bot API's error answers: `{ ok: false, error_code, description, parameters? }`, with the
 * description prefixed by the status text ("Bad Request: ...", "Forbidden: ...") exactly as Telegram
 * words it. grammY turns this body into GrammyError (`error_code`, `description`, `parameters`).
 * The wording follows tdlib/telegram-bot-api (Client.cpp) and TDLib, which produce Telegram's answers.
 */

export interface ResponseParameters {
  retry_after?: number
  migrate_to_chat_id?: number
}

export interface TelegramErrorBody {
  ok: false
  error_code: number
  description: string
  parameters?: ResponseParameters
}

export class TelegramError extends Error {
  constructor(
    readonly status: number,
    readonly description: string,
    readonly parameters?: ResponseParameters,
  ) {
    super(description)
    this.name = 'TelegramError'
  }

  body(): TelegramErrorBody {
    const body: TelegramErrorBody = { ok: false, error_code: this.status, description: this.description }
    if (this.parameters) body.parameters = this.parameters
    return body
  }

  /** A 429 carries Retry-After as Telegram's HTTP layer sends it. */
  headers(): Record<string, string> {
    const retryAfter = this.parameters?.retry_after
    return retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) }
  }
}

export const badRequest = (message: string) => new TelegramError(400, `Bad Request: ${message}`)
export const forbidden = (message: string) => new TelegramError(403, `Forbidden: ${message}`)

/** What api.telegram.org answers for a token it does not know. */
export const unauthorized = () => new TelegramError(401, 'Unauthorized')
/** What api.telegram.org answers for a method it does not know (or a path without /bot<token>). */
export const notFound = () => new TelegramError(404, 'Not Found')
export const tooManyRequests = (retryAfter: number) =>
  new TelegramError(429, `Too Many Requests: retry after ${retryAfter}`, { retry_after: retryAfter })
export const conflict = (message: string) => new TelegramError(409, `Conflict: ${message}`)

export const chatNotFound = () => badRequest('chat not found')
export const userNotFound = () => badRequest('user not found')
export const chatIdEmpty = () => badRequest('chat_id is empty')
export const invalidUserId = () => badRequest('invalid user_id specified')
export const notEnoughRightsToRestrict = () =>
  badRequest('not enough rights to restrict/unrestrict chat member')
export const notEnoughRightsForInviteLinks = () => badRequest('not enough rights to manage chat invite link')
export const notEnoughRightsForJoinRequests = () =>
  badRequest('not enough rights to manage chat join requests')
export const cantRemoveOwner = () => badRequest("can't remove chat owner")
export const userIsAdministrator = () => badRequest('user is an administrator of the chat')
export const cantRestrictSelf = () => badRequest("can't restrict self")
export const supergroupOrChannelOnly = () =>
  badRequest('method is available for supergroup and channel chats only')
export const botCantInitiate = () => forbidden("bot can't initiate conversation with a user")
export const botBlocked = () => forbidden('bot was blocked by the user')
