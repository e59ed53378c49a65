/** The permission bits the emulator checks (a subset of Discord's; names as in Discord's docs). */
export const PermissionBits = {
  CREATE_INSTANT_INVITE: 1n << 0n,
  KICK_MEMBERS: 1n << 1n,
  BAN_MEMBERS: 1n << 2n,
  ADMINISTRATOR: 1n << 3n,
  MANAGE_CHANNELS: 1n << 4n,
  MANAGE_GUILD: 1n << 5n,
  ADD_REACTIONS: 1n << 6n,
  VIEW_AUDIT_LOG: 1n << 7n,
  VIEW_CHANNEL: 1n << 10n,
  SEND_MESSAGES: 1n << 11n,
  MANAGE_MESSAGES: 1n << 13n,
  EMBED_LINKS: 1n << 14n,
  ATTACH_FILES: 1n << 15n,
  READ_MESSAGE_HISTORY: 1n << 16n,
  MENTION_EVERYONE: 1n << 17n,
  MUTE_MEMBERS: 1n << 22n,
  DEAFEN_MEMBERS: 1n << 23n,
  MANAGE_NICKNAMES: 1n << 27n,
  MANAGE_ROLES: 1n << 28n,
} as const

export type PermissionName = keyof typeof PermissionBits

export function permissionBits(names: readonly PermissionName[]): bigint {
  return names.reduce((bits, name) => bits | PermissionBits[name], 0n)
}

export function hasPermission(granted: bigint, name: PermissionName): boolean {
  if ((granted & PermissionBits.ADMINISTRATOR) !== 0n) return true
  return (granted & PermissionBits[name]) !== 0n
}
