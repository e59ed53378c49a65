import { z } from 'zod'
import { SPORTS } from './signal-rules'
import { text } from './text'

/**
 * Web push: members turn notifications on per kind and sport, on each device they use.
 * The server sends each new pick or signal, and its result, through the browser's push service.
 */

/** What a member can be notified of: new picks, new trading signals, results (settled or void). */
export const PUSH_KINDS = ['picks', 'signals', 'results'] as const
export type PushKind = (typeof PUSH_KINDS)[number]

export const PUSH_KIND_LABELS: Record<PushKind, string> = {
  picks: 'New picks',
  signals: 'New trading signals',
  results: 'Results',
}

/** Devices (browsers) one member may have subscribed at a time; a new one beyond replaces the oldest. */
export const PUSH_DEVICES_PER_MEMBER = 10

export const pushMessages = {
  notConfigured: 'Notifications are not available on this server.',
  endpointNotAllowed: 'This browser push service is not one EdgeClub sends to.',
  subscribed: 'Notifications are on for this device.',
  unsubscribed: 'Notifications are off for this device.',
  saved: 'Your notification choices have been saved.',
  noKinds: 'Choose at least one kind of notification, or turn notifications off.',
  notSubscribed: 'This device has no notifications turned on.',
} as const

export const PushPreferencesSchema = z.object({
  kinds: z.array(z.enum(PUSH_KINDS)).min(1, pushMessages.noKinds).max(PUSH_KINDS.length),
  /** Sports whose picks (and their results) notify; empty: every sport. Trading signals ignore it. */
  sports: z.array(z.enum(SPORTS, 'Choose a sport')).max(SPORTS.length),
})
export type PushPreferences = z.infer<typeof PushPreferencesSchema>

/** A PushSubscription as the browser's `toJSON()` gives it (keys base64url). */
export const PushSubscriptionInputSchema = z.object({
  endpoint: text().pipe(z.url('A push endpoint is an https URL').max(2048)),
  keys: z.object({
    p256dh: text().regex(/^[A-Za-z0-9_-]{80,100}={0,2}$/, 'p256dh must be a base64url P-256 public key'),
    auth: text().regex(/^[A-Za-z0-9_-]{16,32}={0,2}$/, 'auth must be a base64url 16-byte secret'),
  }),
})
export type PushSubscriptionInput = z.infer<typeof PushSubscriptionInputSchema>

/** POST /push/subscriptions. */
export const SubscribePushSchema = z.object({
  subscription: PushSubscriptionInputSchema,
  preferences: PushPreferencesSchema.optional(),
})

/** DELETE /push/subscriptions. */
export const UnsubscribePushSchema = z.object({ endpoint: text().min(1).max(2048) })

/** GET /push/key: the server's VAPID public key (the browser's applicationServerKey). */
export const PushKeySchema = z.object({ publicKey: z.string() })

/** GET and PUT /push/preferences: the member's choices and how many devices have notifications on. */
export const PushSettingsSchema = PushPreferencesSchema.extend({ devices: z.number().int() })
export type PushSettings = z.infer<typeof PushSettingsSchema>

/**
 * What a notification carries (the service worker shows it): the words, the pick's commitment (a
 * witness of what was sent when), and the dashboard address that opens the pick.
 */
export const PushPayloadSchema = z.object({
  title: z.string(),
  body: z.string(),
  url: z.string(),
  /** One notification per ledger step and signal: a repeat replaces it instead of adding one. */
  tag: z.string(),
  commitment: z.string(),
  signalId: z.string(),
  seq: z.number().int(),
  type: z.enum(['publish', 'settle', 'void']),
})
export type PushPayload = z.infer<typeof PushPayloadSchema>
