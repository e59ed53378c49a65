import {
  createDecipheriv,
  createECDH,
  createHmac,
  createPublicKey,
  type KeyObject,
  randomBytes,
  verify,
} from 'node:crypto'

/**
 * What a push service and a browser do with a Web Push message: check the sender's VAPID JWT (RFC
 * 8292) and, as the browser, decrypt the aes128gcm payload (RFC 8291 over RFC 8188).
 */

export const b64url = {
  encode: (data: Buffer) => data.toString('base64url'),
  decode: (text: string) => Buffer.from(text.replace(/=+$/, ''), 'base64url'),
}

/** A browser's side of a subscription: its P-256 key pair and the 16-byte auth secret. */
export interface SubscriberKeys {
  /** Uncompressed P-256 public key (65 bytes), base64url: the subscription's `p256dh`. */
  p256dh: string
  auth: string
  /** The private key (32 bytes), base64url; only the subscriber has it. */
  privateKey: string
}

export function newSubscriberKeys(): SubscriberKeys {
  const ecdh = createECDH('prime256v1')
  ecdh.generateKeys()
  return {
    p256dh: b64url.encode(ecdh.getPublicKey()),
    auth: b64url.encode(randomBytes(16)),
    privateKey: b64url.encode(ecdh.getPrivateKey()),
  }
}

/** A raw uncompressed P-256 public key as a key object (for ES256 signatures). */
export function p256PublicKey(raw: Buffer): KeyObject {
  if (raw.length !== 65 || raw[0] !== 4) throw new Error('not an uncompressed P-256 public key')
  return createPublicKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: b64url.encode(raw.subarray(1, 33)),
      y: b64url.encode(raw.subarray(33, 65)),
    },
    format: 'jwk',
  })
}

export type VapidCheck =
  | { ok: true; publicKey: string; subject: string; expiresAt: number }
  | { ok: false; reason: string }

/**
 * The `Authorization: vapid t=<JWT>, k=<public key>` header as a push service checks it: an ES256 JWT
 * signed by that key, for this service's origin (`aud`), not expired and at most 24 hours ahead, with a
 * contact (`sub`: mailto: or https:).
 */
export function checkVapid(header: string | undefined, audience: string, nowSeconds: number): VapidCheck {
  const match = /^vapid\s+(.+)$/i.exec(header ?? '')
  if (!match) return { ok: false, reason: 'Authorization is not a vapid t=..., k=... header' }
  const params = new Map<string, string>()
  for (const part of match[1]!.split(',')) {
    const at = part.indexOf('=')
    if (at > 0) params.set(part.slice(0, at).trim().toLowerCase(), part.slice(at + 1).trim())
  }
  const token = params.get('t')
  const key = params.get('k')
  if (!token || !key) return { ok: false, reason: 'vapid header without t= or k=' }
  const [head, body, signature] = token.split('.')
  if (!head || !body || !signature) return { ok: false, reason: 't= is not a JWT' }
  let header_: { alg?: string }
  let claims: { aud?: string; exp?: number; sub?: string }
  try {
    header_ = JSON.parse(b64url.decode(head).toString('utf8'))
    claims = JSON.parse(b64url.decode(body).toString('utf8'))
  } catch {
    return { ok: false, reason: 'JWT parts are not JSON' }
  }
  if (header_.alg !== 'ES256') return { ok: false, reason: `JWT alg ${header_.alg} is not ES256` }
  let publicKey: KeyObject
  try {
    publicKey = p256PublicKey(b64url.decode(key))
  } catch {
    return { ok: false, reason: 'k= is not a P-256 public key' }
  }
  const signed = verify(
    'sha256',
    Buffer.from(`${head}.${body}`),
    { key: publicKey, dsaEncoding: 'ieee-p1363' },
    b64url.decode(signature),
  )
  if (!signed) return { ok: false, reason: 'JWT signature does not verify with k=' }
  if (claims.aud !== audience) return { ok: false, reason: `JWT aud ${claims.aud} is not ${audience}` }
  if (typeof claims.exp !== 'number' || claims.exp <= nowSeconds) return { ok: false, reason: 'JWT expired' }
  if (claims.exp > nowSeconds + 24 * 3600) return { ok: false, reason: 'JWT exp more than 24 hours ahead' }
  if (typeof claims.sub !== 'string' || !/^(mailto:|https:)/.test(claims.sub))
    return { ok: false, reason: 'JWT sub is not a mailto: or https: contact' }
  return { ok: true, publicKey: key, subject: claims.sub, expiresAt: claims.exp }
}

const hmac = (key: Buffer, data: Buffer) => createHmac('sha256', key).update(data).digest()

/** The payload of one aes128gcm message (one record, as push messages are) for the subscriber's keys. */
export function decryptAes128gcm(
  message: Buffer,
  keys: Pick<SubscriberKeys, 'p256dh' | 'auth' | 'privateKey'>,
) {
  const salt = message.subarray(0, 16)
  const idLength = message[20]!
  const senderPublic = message.subarray(21, 21 + idLength)
  const cipherText = message.subarray(21 + idLength)
  const ecdh = createECDH('prime256v1')
  ecdh.setPrivateKey(b64url.decode(keys.privateKey))
  const shared = ecdh.computeSecret(senderPublic)
  const receiverPublic = b64url.decode(keys.p256dh)
  // RFC 8291 §3.4: the auth secret and both public keys go into the input keying material.
  const prkKey = hmac(b64url.decode(keys.auth), shared)
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), receiverPublic, senderPublic, Buffer.of(1)])
  const ikm = hmac(prkKey, keyInfo)
  // RFC 8188 §2.2: the content-encryption key and the nonce.
  const prk = hmac(salt, ikm)
  const cek = hmac(prk, Buffer.from('Content-Encoding: aes128gcm\0\x01')).subarray(0, 16)
  const nonce = hmac(prk, Buffer.from('Content-Encoding: nonce\0\x01')).subarray(0, 12)
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce)
  decipher.setAuthTag(cipherText.subarray(cipherText.length - 16))
  const padded = Buffer.concat([
    decipher.update(cipherText.subarray(0, cipherText.length - 16)),
    decipher.final(),
  ])
  // The last record ends with the delimiter 2, then zero padding.
  let end = padded.length - 1
  while (end >= 0 && padded[end] === 0) end -= 1
  if (padded[end] !== 2) throw new Error('the record has no last-record delimiter')
  return padded.subarray(0, end).toString('utf8')
}
