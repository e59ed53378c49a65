export { type Emulator, type EmulatorOptions, startEmulator } from './server'
