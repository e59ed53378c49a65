import { createDecipheriv, createECDH, hkdfSync, randomBytes } from 'node:crypto'

/**
 * A browser's side of Web Push in the test: its P-256 key pair and auth secret, and the decryption of
 * an aes128gcm push as RFC 8291 says (ECDH, then HKDF twice), written here apart from the app and the
 * emulator so it checks both.
 */
export interface Subscriber {
  p256dh: string
  auth: string
  decrypt(body: Buffer): string
}

export function newSubscriber(): Subscriber {
  const ecdh = createECDH('prime256v1')
  const publicKey = ecdh.generateKeys()
  const auth = randomBytes(16)
  return {
    p256dh: publicKey.toString('base64url'),
    auth: auth.toString('base64url'),
    decrypt(body) {
      // RFC 8188 header: salt (16), record size (4), key id length (1), key id (the sender's public key).
      const salt = body.subarray(0, 16)
      const idLength = body.readUInt8(20)
      const senderKey = body.subarray(21, 21 + idLength)
      const record = body.subarray(21 + idLength)
      const shared = ecdh.computeSecret(senderKey)
      // RFC 8291 §3.3-3.4: IKM = HKDF(auth, ECDH secret, "WebPush: info" || 0 || ua_public || as_public, 32).
      const info = Buffer.concat([Buffer.from('WebPush: info\0', 'latin1'), publicKey, senderKey])
      const ikm = Buffer.from(hkdfSync('sha256', shared, auth, info, 32))
      const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16))
      const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12))
      const decipher = createDecipheriv('aes-128-gcm', cek, nonce)
      decipher.setAuthTag(record.subarray(record.length - 16))
      const plain = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()])
      // The last record's delimiter (2) after the content, then zero padding.
      const end = plain.lastIndexOf(2)
      if (end < 0 || plain.subarray(end + 1).some((byte) => byte !== 0))
        throw new Error('no last-record delimiter')
      return plain.subarray(0, end).toString('utf8')
    },
  }
}
