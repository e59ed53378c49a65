import type { CommunityService } from '../modules/community/community-service'
import type { Jobs } from './job-runner'

/** Brings one member's Discord role in line with their access (throws on Discord errors: retried with backoff). */
export function discordSyncWorker(deps: { community: CommunityService }) {
  return async (data: { userId: string }) => {
    await deps.community.syncMember(data.userId)
  }
}

/**
 * The sweep behind the per-change syncs: every member who has access or a Discord record gets a sync,
 * at most one per member every few seconds however often the sweep and the dashboards ask.
 */
export function discordSweepWorker(deps: { community: CommunityService; jobs: Jobs }) {
  return async () => {
    for (const userId of await deps.community.syncCandidates())
      await deps.jobs.enqueue('discord.sync', { userId }, { throttle: { key: `poll-${userId}`, seconds: 5 } })
  }
}

/** After a disconnect: removes the member role from the Discord account the member let go (retried on errors). */
export function discordReleaseWorker(deps: { community: CommunityService }) {
  return async (data: { userId: string; discordUserId: string }) => {
    await deps.community.releaseAccount(data.userId, data.discordUserId)
  }
}
