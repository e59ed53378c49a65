import {
  type DiscordRoleOption,
  placeMessages as messages,
  type Place,
  type PlaceInput,
  type PlacesOverview,
  type PlanPlaces,
} from '@edgeclub/shared'
import type { FastifyBaseLogger } from 'fastify'
import type { Transaction } from 'kysely'
import { setAuditTarget } from '../../audit/audit-scope'
import type { DB, PlaceRow, PlanPlacesRow } from '../../db/types'
import type { DiscordClient } from '../../integrations/discord/discord-client'
import type { TelegramClient } from '../../integrations/telegram/telegram-client'
import { telegramFailure } from '../../integrations/telegram/telegram-client'
import type { Clock } from '../../lib/clock'
import { AppError, badRequest, conflict, notFound } from '../../lib/errors'
import { isUuid } from '../../lib/ids'
import type { Jobs } from '../../queue/job-runner'
import type { PlacesRepository } from './places-repository'

/** What a member's plans open now: external ids the platforms know, and the signal categories. */
export interface MemberGrant {
  /** Whether the member has access at all (no access: nothing below). */
  hasAccess: boolean
  /** Discord role ids to hold in the server. */
  discordRoleIds: string[]
  /** Places (ids) of the Telegram chats to be in. */
  telegramPlaceIds: string[]
  signalCategories: 'all' | string[]
}

const NO_GRANT: MemberGrant = {
  hasAccess: false,
  discordRoleIds: [],
  telegramPlaceIds: [],
  signalCategories: [],
}

/** The signal categories of several plans held at once: all of them if any plan opens all. */
function unionOfCategories(each: readonly ('all' | string[])[]): 'all' | string[] {
  return each.includes('all') ? 'all' : [...new Set(each.flat())]
}

/** Rights the bot needs in a Telegram chat: invite links that ask to join, approving, removing. */
const TELEGRAM_RIGHTS = ['can_invite_users', 'can_restrict_members'] as const

function choiceOf(value: string[] | null): 'all' | string[] {
  return value === null ? 'all' : value
}

export function toPlanPlaces(row: PlanPlacesRow | undefined): PlanPlaces {
  return {
    discordRoles: choiceOf(row?.discord_roles ?? null),
    telegramChats: choiceOf(row?.telegram_chats ?? null),
    signalCategories: choiceOf(row?.signal_categories ?? null),
  }
}

/**
 * Places: the Discord roles and Telegram chats the club's plans open, and which signal categories a
 * plan's members receive. Every reader of "what does this member get" (the Discord and Telegram
 * syncs, invites, signal delivery, the admin console) asks `grantFor` here, which reads the one
 * access rule; an edit of a plan's places queues a sync of its holders (places-jobs.ts).
 */
export function createPlacesService(deps: {
  repo: PlacesRepository
  jobs: Pick<Jobs, 'enqueue'>
  clock: Clock
  /** DISCORD_MEMBER_ROLE_ID: always a place while Discord is configured. */
  memberRoleId: string | undefined
  discord: Pick<DiscordClient, 'roles' | 'botUser' | 'getMember'> | undefined
  telegram: TelegramClient | undefined
  log: FastifyBaseLogger
}) {
  const { repo, clock } = deps

  /** Resolves a plan's grant ('all' or place ids) against the places that exist now. */
  function resolve(grant: PlanPlaces, places: PlaceRow[]) {
    const pick = (kind: PlaceRow['kind'], choice: 'all' | string[]) =>
      places.filter((place) => place.kind === kind && (choice === 'all' || choice.includes(place.id)))
    return {
      discordRoleIds: pick('discord_role', grant.discordRoles).map((place) => place.external_id),
      telegramPlaceIds: pick('telegram_chat', grant.telegramChats).map((place) => place.id),
      signalCategories: grant.signalCategories,
    }
  }

  /** The union of several plans' grants (a member may hold two plans at once, e.g. monthly and lifetime). */
  function union(grants: ReturnType<typeof resolve>[]): MemberGrant {
    if (grants.length === 0) return NO_GRANT
    // One plan (most members): the plan's own lists, shared by all its holders (never mutated), so a
    // delivery to thousands of live streams decides once per plan what its categories open
    // (signal-stream.ts) and asking for 15,000 members makes no copies.
    if (grants.length === 1) return { hasAccess: true, ...grants[0]! }
    return {
      hasAccess: true,
      discordRoleIds: [...new Set(grants.flatMap((grant) => grant.discordRoleIds))],
      telegramPlaceIds: [...new Set(grants.flatMap((grant) => grant.telegramPlaceIds))],
      signalCategories: unionOfCategories(grants.map((grant) => grant.signalCategories)),
    }
  }

  /**
   * Each member with access among these: the plans that give it, and the moment (ms) that first
   * changes by time alone (a plan's end or grace; null: never). One statement whatever their number
   * (the ids are one array parameter), grouped in one pass.
   */
  async function heldPlans(userIds: readonly string[], trx?: Transaction<DB>) {
    const byUser = new Map<string, { planIds: string[]; until: number | null }>()
    for (const row of await repo.currentPlans(userIds, clock.now(), trx)) {
      const ends = row.access_until === null ? null : new Date(row.access_until).valueOf()
      const held = byUser.get(row.user_id)
      if (!held) byUser.set(row.user_id, { planIds: [row.plan_id], until: ends })
      else {
        held.planIds.push(row.plan_id)
        if (ends !== null) held.until = held.until === null ? ends : Math.min(held.until, ends)
      }
    }
    return byUser
  }

  async function grantsFor(userIds: readonly string[], trx?: Transaction<DB>) {
    if (userIds.length === 0) return new Map<string, MemberGrant>()
    // Asked together: the members' current plans, every plan's grant (a handful of rows) and the places.
    const [held, rows, places] = await Promise.all([
      heldPlans(userIds, trx),
      repo.allPlanPlaces(trx),
      repo.listPlaces(undefined, trx),
    ])
    const byPlan = new Map<string, ReturnType<typeof resolve>>()
    const grantOf = (planId: string) => {
      let grant = byPlan.get(planId)
      if (!grant) {
        grant = resolve(toPlanPlaces(rows.find((row) => row.plan_id === planId)), places)
        byPlan.set(planId, grant)
      }
      return grant
    }
    const byUser = new Map<string, MemberGrant>()
    for (const [userId, { planIds }] of held) byUser.set(userId, union(planIds.map(grantOf)))
    return byUser
  }

  /** Checks a plan's chosen places exist and are of the right kind; answers what to store (null: all). */
  async function validated(input: PlanPlaces, trx?: Transaction<DB>) {
    const places = await repo.listPlaces(undefined, trx)
    const check = (choice: 'all' | string[], kind: PlaceRow['kind'], field: string) => {
      if (choice === 'all') return null
      for (const id of choice) {
        const place = places.find((candidate) => candidate.id === id)
        if (!place) throw badRequest(messages.unknownPlace, [{ field, message: messages.unknownPlace }])
        if (place.kind !== kind)
          throw badRequest(messages.wrongKind, [{ field, message: messages.wrongKind }])
      }
      return [...new Set(choice)]
    }
    return {
      discordRoles: check(input.discordRoles, 'discord_role', 'places.discordRoles'),
      telegramChats: check(input.telegramChats, 'telegram_chat', 'places.telegramChats'),
      signalCategories:
        input.signalCategories === 'all'
          ? null
          : [...new Map(input.signalCategories.map((name) => [name.toLowerCase(), name])).values()],
    }
  }

  async function placeView(place: PlaceRow): Promise<Place> {
    const [plans, grants] = await Promise.all([repo.planNames(), repo.allPlanPlaces()])
    return toPlaceView(place, plans, grants)
  }

  function toPlaceView(
    place: PlaceRow,
    plans: { id: string; name: string }[],
    grants: PlanPlacesRow[],
  ): Place {
    const granting = plans.filter((plan) => {
      const grant = toPlanPlaces(grants.find((row) => row.plan_id === plan.id))
      const choice = place.kind === 'discord_role' ? grant.discordRoles : grant.telegramChats
      return choice === 'all' || choice.includes(place.id)
    })
    return {
      id: place.id,
      kind: place.kind,
      externalId: place.external_id,
      title: place.title,
      signalCategories: place.signal_categories ?? 'all',
      builtIn: place.kind === 'discord_role' && place.external_id === deps.memberRoleId,
      plans: granting.map((plan) => plan.name),
      createdAt: new Date(place.created_at).toISOString(),
    }
  }

  function telegramOrThrow(): TelegramClient {
    if (!deps.telegram)
      throw new AppError('UPSTREAM_ERROR', messages.telegramNotConfigured, { statusCode: 503 })
    return deps.telegram
  }

  function discordOrThrow() {
    if (!deps.discord)
      throw new AppError('UPSTREAM_ERROR', messages.discordNotConfigured, { statusCode: 503 })
    return deps.discord
  }

  /** Roles of the server the bot may give: not @everyone, not managed, below its own highest role. */
  async function assignableRoles() {
    const discord = discordOrThrow()
    const [roles, bot] = await Promise.all([discord.roles(), discord.botUser()])
    const botMember = await discord.getMember(bot.id)
    const top = Math.max(
      0,
      ...roles.filter((role) => botMember.roles.includes(role.id)).map((role) => role.position),
    )
    return roles
      .filter((role) => role.position > 0 && !role.managed && role.position < top)
      .sort((a, b) => b.position - a.position)
  }

  async function verifiedTelegramChat(chat: string) {
    const telegram = telegramOrThrow()
    const chatId = /^-?\d+$/.test(chat) ? Number(chat) : chat
    try {
      const [info, me] = await Promise.all([telegram.api.getChat(chatId), telegram.botInfo()])
      if (info.type === 'private') throw badRequest(messages.privateChat)
      const member = await telegram.api.getChatMember(info.id, me.id)
      const rights = member.status === 'administrator' ? member : undefined
      const needed = [
        ...TELEGRAM_RIGHTS,
        ...(info.type === 'channel' ? (['can_post_messages'] as const) : []),
      ]
      const missing = needed.filter((right) => !rights?.[right])
      if (member.status !== 'creator' && missing.length > 0)
        throw badRequest(messages.botNotAdmin(missing.join(', ')))
      return { id: String(info.id), title: 'title' in info && info.title ? info.title : String(info.id) }
    } catch (error) {
      if (error instanceof AppError) throw error
      const failure = telegramFailure(error)
      deps.log.warn({ ...failure }, 'adding a Telegram chat failed')
      if (failure.status === 400 || failure.status === 403) throw badRequest(messages.chatNotFound)
      throw new AppError('UPSTREAM_ERROR', 'Telegram did not answer. Please try again.', { statusCode: 503 })
    }
  }

  return {
    /** What a member's plans open now (nothing without access). */
    async grantFor(userId: string, trx?: Transaction<DB>): Promise<MemberGrant> {
      return (await grantsFor([userId], trx)).get(userId) ?? NO_GRANT
    },

    /** What a member's plans open, by name, for the admin console. */
    async grantSummary(userId: string) {
      const [grant, places] = await Promise.all([this.grantFor(userId), repo.listPlaces()])
      const titles = (kind: PlaceRow['kind'], ids: string[], key: 'id' | 'external_id') =>
        places.filter((place) => place.kind === kind && ids.includes(place[key])).map((place) => place.title)
      return {
        discordRoles: titles('discord_role', grant.discordRoleIds, 'external_id'),
        telegramChats: titles('telegram_chat', grant.telegramPlaceIds, 'id'),
        signalCategories: grant.hasAccess ? grant.signalCategories : [],
      }
    },

    /** Members with access among these, and the signal categories each receives. */
    async categoriesFor(userIds: readonly string[]): Promise<Map<string, 'all' | string[]>> {
      const grants = await grantsFor(userIds)
      return new Map([...grants].map(([userId, grant]) => [userId, grant.signalCategories]))
    },

    /**
     * Members with access among these: the plans that give it, and the moment (ms) it first changes by
     * time alone (a plan's end or grace; null: never). Any other change of access is announced by the
     * access service. With `signalGrants`, what `categoriesFor` answers, in two parts: the live stream
     * keeps the first per reader and reads the second, a handful of rows, at every delivery.
     */
    accessPlans: (userIds: readonly string[]) => heldPlans(userIds),

    /**
     * What the holder of these plans receives now ('all' or the categories): each plan's grant as it
     * stands (an edit applies to the next delivery), the same union as `grantFor`.
     */
    async signalGrants(): Promise<(planIds: readonly string[]) => 'all' | string[]> {
      const rows = await repo.allPlanPlaces()
      const ofPlan = new Map(rows.map((row) => [row.plan_id, toPlanPlaces(row).signalCategories]))
      const categories = (planId: string) => ofPlan.get(planId) ?? 'all'
      return (planIds) =>
        planIds.length === 1 ? categories(planIds[0]!) : unionOfCategories(planIds.map(categories))
    },

    /** Discord roles the role sync looks after (a role that is no place is never touched). */
    async managedDiscordRoles(): Promise<string[]> {
      return (await repo.listPlaces('discord_role')).map((place) => place.external_id)
    },

    telegramChats: (trx?: Transaction<DB>) => repo.listPlaces('telegram_chat', trx),
    findPlace: (id: string) => repo.findPlace(id),
    findTelegramChat: (chatId: string, trx?: Transaction<DB>) =>
      repo.findLiveByExternalId('telegram_chat', chatId, trx),

    /** Each plan's grant as the editor shows it. */
    async planPlaces(planIds: readonly string[]): Promise<Map<string, PlanPlaces>> {
      const rows = await repo.planPlaces(planIds)
      return new Map(planIds.map((id) => [id, toPlanPlaces(rows.find((row) => row.plan_id === id))]))
    },

    /**
     * A plan's new grant, in the caller's transaction; its holders' places follow within the minute
     * (a job keyed by the edit lists them and queues each one's Discord and Telegram sync).
     */
    async setPlanPlaces(planId: string, input: PlanPlaces, outer?: Transaction<DB>): Promise<void> {
      if (!outer) return repo.transaction((trx) => this.setPlanPlaces(planId, input, trx))
      const trx = outer
      const grant = await validated(input, trx)
      const now = clock.now()
      const previous = (await repo.planPlaces([planId], trx))[0]
      const stored = (roles: unknown, chats: unknown, categories: unknown) =>
        JSON.stringify([roles ?? null, chats ?? null, categories ?? null])
      const unchanged =
        stored(previous?.discord_roles, previous?.telegram_chats, previous?.signal_categories) ===
        stored(grant.discordRoles, grant.telegramChats, grant.signalCategories)
      if (unchanged) return
      await repo.savePlanPlaces(planId, grant, now, trx)
      await deps.jobs.enqueue(
        'places.plan-changed',
        { planId },
        { trx, key: `plan-places:${planId}:${now.valueOf()}` },
      )
    },

    /** Checks a grant before anything is written (the plans editor saves the plan, then its places). */
    async checkPlanPlaces(input: PlanPlaces): Promise<void> {
      await validated(input)
    },

    holders: (planId: string) => repo.holders(planId, clock.now()),

    /** GET /admin/places. */
    async overview(): Promise<PlacesOverview> {
      const [places, plans, grants, categories] = await Promise.all([
        repo.listPlaces(),
        repo.planNames(),
        repo.allPlanPlaces(),
        repo.signalCategories(),
      ])
      return {
        places: places.map((place) => toPlaceView(place, plans, grants)),
        categories,
        discordConfigured: Boolean(deps.discord),
        telegramConfigured: Boolean(deps.telegram),
      }
    },

    /** GET /admin/places/discord-roles: the roles the bot can give, and which are places already. */
    async discordRoleOptions(): Promise<DiscordRoleOption[]> {
      const [roles, listed] = await Promise.all([assignableRoles(), repo.listPlaces('discord_role')])
      return roles.map((role) => ({
        id: role.id,
        name: role.name,
        listed: listed.some((place) => place.external_id === role.id),
      }))
    },

    /** POST /admin/places: checked with the platform first (the bot must be able to act there). */
    async addPlace(input: PlaceInput): Promise<Place> {
      const found =
        input.kind === 'telegram_chat'
          ? await verifiedTelegramChat(input.chat)
          : await (async () => {
              const role = (await assignableRoles()).find((candidate) => candidate.id === input.roleId)
              if (!role) throw badRequest(messages.roleNotAssignable)
              return { id: role.id, title: role.name }
            })()
      if (await repo.findLiveByExternalId(input.kind, found.id)) throw conflict(messages.alreadyAdded)
      const place = await repo.insertPlace({
        kind: input.kind,
        externalId: found.id,
        title: found.title,
        signalCategories:
          input.kind === 'telegram_chat' && input.signalCategories !== 'all' ? input.signalCategories : null,
      })
      setAuditTarget(place.id)
      return placeView(place)
    },

    /** PUT /admin/places/{id}: the signal categories a Telegram chat gets. */
    async updatePlace(id: string, input: { signalCategories: 'all' | string[] }): Promise<Place> {
      const place = isUuid(id) ? await repo.findPlace(id) : undefined
      if (!place || place.archived_at) throw notFound('Place not found')
      if (place.kind !== 'telegram_chat') throw badRequest('Only Telegram chats get signals')
      const updated = await repo.updatePlace(id, {
        signalCategories: input.signalCategories === 'all' ? null : input.signalCategories,
      })
      return placeView(updated ?? place)
    },

    /**
     * DELETE /admin/places/{id}: the place stops being one (plans that chose it no longer grant it;
     * members keep what they hold there, as with any role or chat EdgeClub does not manage).
     */
    async removePlace(id: string): Promise<{ removed: boolean }> {
      const place = isUuid(id) ? await repo.findPlace(id) : undefined
      if (!place || place.archived_at) throw notFound('Place not found')
      if (place.kind === 'discord_role' && place.external_id === deps.memberRoleId)
        throw badRequest(
          'The member role of DISCORD_MEMBER_ROLE_ID is always a place; choose per plan instead',
        )
      await repo.archivePlace(id, clock.now())
      return { removed: true }
    },

    /** At start: the configured Discord member role is a place (what every plan granted before places). */
    async ensureBuiltIn(): Promise<void> {
      if (!deps.memberRoleId || !deps.discord) return
      await repo.ensurePlace({ kind: 'discord_role', externalId: deps.memberRoleId, title: 'Member' })
    },
  }
}
export type PlacesService = ReturnType<typeof createPlacesService>
