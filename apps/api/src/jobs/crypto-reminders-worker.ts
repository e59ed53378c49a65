import type { CryptoService } from '../modules/payments/crypto/crypto-service'

/** Daily: crypto-paid periods ending within three days get one reminder each (the end date is the key). */
export function cryptoRemindersWorker(deps: { crypto: CryptoService }) {
  return async () => {
    await deps.crypto.sendRenewalReminders()
  }
}
