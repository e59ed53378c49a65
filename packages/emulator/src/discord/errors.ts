/**
 * Discord's JSON error bodies. @discordjs/rest turns a 4xx body into DiscordAPIError using `code`,
 * `message` and the nested `errors` tree, so the shapes below follow Discord's exactly.
 */

export interface FieldError {
  code: string
  message: string
}

/** Discord nests field errors by path: `{ embeds: { 0: { title: { _errors: [...] } } } }`. */
export type FormErrors = { [key: string]: FormErrors | FieldError[] }

export interface DiscordErrorBody {
  message: string
  code: number
  errors?: FormErrors
}

export class DiscordError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly errors?: FormErrors,
  ) {
    super(message)
    this.name = 'DiscordError'
  }

  body(): DiscordErrorBody | Record<string, string[]> {
    return this.errors
      ? { message: this.message, code: this.code, errors: this.errors }
      : { message: this.message, code: this.code }
  }
}

/**
 * A rejected `target_users_file`: Discord answers 400 with the bad lines under the field's name
 * (`{"target_users_file": ["Line 5: invalid user ID format"]}`), not its usual error body.
 */
export class DiscordFileError extends DiscordError {
  constructor(readonly fields: Record<string, string[]>) {
    super(400, 50035, 'Invalid Form Body')
  }

  override body(): Record<string, string[]> {
    return this.fields
  }
}

export const unauthorized = () => new DiscordError(401, 0, '401: Unauthorized')
export const notFound = () => new DiscordError(404, 0, '404: Not Found')
export const methodNotAllowed = () => new DiscordError(405, 0, '405: Method Not Allowed')
export const unknownChannel = () => new DiscordError(404, 10003, 'Unknown Channel')
export const unknownGuild = () => new DiscordError(404, 10004, 'Unknown Guild')
export const unknownInvite = () => new DiscordError(404, 10006, 'Unknown Invite')
export const unknownMember = () => new DiscordError(404, 10007, 'Unknown Member')
export const unknownRole = () => new DiscordError(404, 10011, 'Unknown Role')
export const unknownBan = () => new DiscordError(404, 10026, 'Unknown Ban')
export const maxGuildsReached = () => new DiscordError(400, 30001, 'Maximum number of guilds reached (100)')
export const maxMembersReached = () =>
  new DiscordError(400, 30019, 'Maximum number of server members reached')
export const bannedFromGuild = () => new DiscordError(403, 40007, 'The user is banned from this guild.')
export const missingAccess = () => new DiscordError(403, 50001, 'Missing Access')
export const dmChannelAction = () => new DiscordError(403, 50003, 'Cannot execute action on a DM channel')
export const emptyMessage = () => new DiscordError(400, 50006, 'Cannot send an empty message')
export const cannotMessageUser = () => new DiscordError(403, 50007, 'Cannot send messages to this user')
export const missingPermissions = () => new DiscordError(403, 50013, 'Missing Permissions')
export const invalidRecipient = () => new DiscordError(400, 50033, 'Invalid Recipient(s)')
export const invalidOAuthToken = () => new DiscordError(403, 50025, 'Invalid OAuth2 access token')
export const missingOAuthScope = () => new DiscordError(403, 50026, 'Missing required OAuth2 scope')
export const invalidApiVersion = () => new DiscordError(400, 50041, 'Invalid API version')
export const invalidJson = () => new DiscordError(400, 50109, 'The request body contains invalid JSON.')

/** Collects field errors the way Discord reports them: all at once, under 50035 Invalid Form Body. */
export class FormValidator {
  private readonly errors: FormErrors = {}
  private count = 0

  add(path: readonly (string | number)[], code: string, message: string): void {
    let node: FormErrors = this.errors
    for (const key of path) {
      const next = node[String(key)]
      if (next === undefined || Array.isArray(next)) {
        const created: FormErrors = {}
        node[String(key)] = created
        node = created
      } else {
        node = next
      }
    }
    const existing = node._errors
    if (Array.isArray(existing)) existing.push({ code, message })
    else node._errors = [{ code, message }]
    this.count += 1
  }

  throwIfAny(): void {
    if (this.count > 0) throw new DiscordError(400, 50035, 'Invalid Form Body', this.errors)
  }
}

export function snowflakeFieldError(field: string, value: string): DiscordError {
  return new DiscordError(400, 50035, 'Invalid Form Body', {
    [field]: { _errors: [{ code: 'NUMBER_TYPE_COERCE', message: `Value "${value}" is not snowflake.` }] },
  })
}
