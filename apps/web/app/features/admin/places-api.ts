import { DiscordRoleOptionSchema, PlacesOverviewSchema } from '@edgeclub/shared'
import { useQuery } from '@tanstack/react-query'
import { z } from 'zod'
import { fetchData } from './admin-api'

/** The club's places (Discord roles, Telegram chats), which plans grant them, and the categories used. */
export function usePlaces() {
  return useQuery({
    queryKey: ['admin', 'places'],
    queryFn: () => fetchData('/admin/places', PlacesOverviewSchema),
  })
}

/** Roles of the Discord server the bot can give (asked only when Discord is configured). */
export function useDiscordRoleOptions(enabled: boolean) {
  return useQuery({
    queryKey: ['admin', 'places', 'discord-roles'],
    queryFn: () => fetchData('/admin/places/discord-roles', z.array(DiscordRoleOptionSchema)),
    enabled,
  })
}
