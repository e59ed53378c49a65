export type { PushServiceControl, PushSubscriptionRecord, ReceivedPush } from './push/push-service'
export { decryptAes128gcm, newSubscriberKeys } from './push/web-push-crypto'
export { type Emulator, type EmulatorOptions, startEmulator } from './server'
export type { TelegramControl, TelegramEmulatorOptions } from './telegram'
