import type { Jobs, QueuePolicies, QueuePolicy } from '../../queue/job-runner'
import { SWEEP_POLICY } from '../../queue/job-runner'
import type { AccessListener } from '../subscriptions/access-service'
import type { CommunityService } from './community-service'

declare module '../../queue/job-runner' {
  interface JobData {
    /** Brings one member's Discord role in line with their access. */
    'discord.sync': { userId: string }
    /** The sweep behind the per-change syncs. */
    'discord.sync-all': Record<string, never>
    /** After a disconnect: the member role leaves the Discord account the member let go. */
    'discord.release': { userId: string; discordUserId: string }
  }
}

const DISCORD_CALLS: QueuePolicy = {
  retryLimit: 10,
  retryDelay: 5,
  batchSize: 10,
  concurrency: 2,
  expireInSeconds: 60,
}

export const COMMUNITY_QUEUES: QueuePolicies<'discord.sync' | 'discord.sync-all' | 'discord.release'> = {
  'discord.sync': DISCORD_CALLS,
  'discord.sync-all': SWEEP_POLICY,
  'discord.release': DISCORD_CALLS,
}

/** A member's access changed: their Discord role follows, once per change (the change's key). */
export function discordFollowsAccess(jobs: Pick<Jobs, 'enqueue'>): AccessListener {
  return ({ userId, key }, trx) => jobs.enqueue('discord.sync', { userId }, { trx, key })
}

export async function registerCommunityJobs(
  jobs: Pick<Jobs, 'work' | 'schedule' | 'enqueue'>,
  deps: {
    community: Pick<CommunityService, 'syncMember' | 'syncCandidates' | 'releaseAccount'>
    discordConfigured: boolean
  },
): Promise<void> {
  // Discord errors throw: the job is retried with backoff.
  await jobs.work('discord.sync', async (data) => {
    await deps.community.syncMember(data.userId)
  })
  // Every member who has access or a Discord record gets a sync, at most one per member every few
  // seconds however often the sweep and the dashboards ask.
  await jobs.work('discord.sync-all', async () => {
    for (const userId of await deps.community.syncCandidates())
      await jobs.enqueue('discord.sync', { userId }, { throttle: { key: `poll-${userId}`, seconds: 5 } })
  })
  await jobs.work('discord.release', async (data) => {
    await deps.community.releaseAccount(data.userId, data.discordUserId)
  })
  if (deps.discordConfigured) await jobs.schedule('discord.sync-all', '*/15 * * * *')
}
