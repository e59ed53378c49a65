import {
  AdminPlanPageSchema,
  type AdminUser,
  AdminUserDetailSchema,
  AuditPageSchema,
  DisableResultSchema,
  type GrantAccessSchema,
  GrantResultSchema,
  ModerationResultSchema,
  PublicUserSchema,
} from '@edgeclub/shared'
import { useQuery } from '@tanstack/react-query'
import type { z } from 'zod'
import { act, fetchData, fetchList } from './admin-api'

export const fullName = (user: Pick<AdminUser, 'firstName' | 'lastName'>) =>
  `${user.firstName} ${user.lastName}`.trim()

/** GET /admin/users/{id}: the member, their Discord link, subscriptions, payments and access now. */
export function useMemberDetail(userId: string) {
  return useQuery({
    queryKey: ['admin', 'user', userId],
    queryFn: () => fetchData(`/admin/users/${encodeURIComponent(userId)}`, AdminUserDetailSchema),
  })
}

/** What admins did to this member, newest first (the audit log filtered to them). */
export function useMemberHistory(userId: string) {
  return useQuery({
    queryKey: ['admin', 'audit', 'member', userId],
    queryFn: () =>
      fetchList(
        '/admin/audit',
        {
          page: 1,
          limit: 10,
          search: '',
          sortBy: 'createdAt',
          sortOrder: 'desc',
          filters: { targetId: userId },
        },
        AuditPageSchema,
      ),
  })
}

/** The plans complimentary access can be on: every plan not archived, inactive ones included. */
export function useGrantablePlans() {
  return useQuery({
    queryKey: ['admin', 'plans', 'for-grants'],
    queryFn: () =>
      fetchList(
        '/admin/plans',
        {
          page: 1,
          limit: 100,
          search: '',
          sortBy: 'sortOrder',
          sortOrder: 'asc',
          filters: { includeArchived: 'false' },
        },
        AdminPlanPageSchema,
      ),
  })
}

export function grantAccess(userId: string, grant: z.infer<typeof GrantAccessSchema>) {
  return act(`/admin/users/${userId}/grant`, 'POST', GrantResultSchema, grant)
}

export function setMemberRole(userId: string, role: AdminUser['role']) {
  return act(`/admin/users/${userId}/role`, 'POST', PublicUserSchema, { role })
}

export function setMemberDisabled(userId: string, disabled: boolean) {
  return act(`/admin/users/${userId}/disable`, 'POST', DisableResultSchema, { disabled })
}

/** Kick, ban or unban in the Discord server, with an optional reason for Discord's audit log. */
export function moderateMember(action: 'kick' | 'ban' | 'unban', userId: string, reason?: string) {
  return act(`/admin/users/${action}`, 'POST', ModerationResultSchema, { userId, reason })
}
