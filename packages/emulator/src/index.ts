export { type Emulator, type EmulatorOptions, startEmulator } from './server'
export type { TelegramControl, TelegramEmulatorOptions } from './telegram'
