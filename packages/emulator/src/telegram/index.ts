export { TelegramError, type TelegramErrorBody } from './errors'
export {
  type ChatFloodStats,
  DEFAULT_FLOOD_LIMITS,
  type FloodLimit,
  type TelegramFault,
  type TelegramRateLimitOptions,
} from './flood-control'
export {
  type ApiLogEntry,
  DEFAULT_BOT_RIGHTS,
  type TelegramChatInput,
  type TelegramConfig,
  type TelegramState,
  type TelegramUserInput,
} from './state'
export {
  type BotPlace,
  type JoinOutcome,
  mountTelegram,
  type TelegramControl,
  type TelegramEmulatorOptions,
} from './telegram'
export type { DeliveryRecord, WebhookOptions } from './update-queue'
