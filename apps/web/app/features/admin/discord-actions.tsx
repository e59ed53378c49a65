import { useId, useState } from 'react'
import { Button } from '../../components/ui/button'
import { ConfirmButton, type RunAction } from '../../components/ui/console'
import { inputClasses } from '../../components/ui/field'
import { moderateMember } from './members-api'

/**
 * Kick, ban or unban the member in every community the club runs (the Discord server and the Telegram
 * chats), with a reason kept in Discord's audit log and ours.
 */
export function DiscordActions({ userId, banned, run }: { userId: string; banned: boolean; run: RunAction }) {
  const [reason, setReason] = useState('')
  const reasonId = useId()
  const moderation = (action: 'kick' | 'ban' | 'unban') => () =>
    run(async () => (await moderateMember(action, userId, reason.trim() || undefined)).message)

  return (
    <div className="space-y-2">
      <h3 className="text-sm font-semibold text-slate-200">Discord and Telegram</h3>
      <div className="flex flex-wrap items-end gap-2">
        <div className="w-full sm:w-80">
          <label htmlFor={reasonId} className="mb-1 block text-sm text-slate-300">
            Reason (optional, kept in the audit logs)
          </label>
          <input
            id={reasonId}
            className={inputClasses}
            value={reason}
            maxLength={300}
            onChange={(event) => setReason(event.target.value)}
          />
        </div>
        <ConfirmButton
          label="Kick"
          confirmLabel="Yes, kick"
          question="Remove them from the Discord server and the Telegram chats? They can come back with a new invite or link."
          disabled={banned}
          onConfirm={moderation('kick')}
        />
        {banned ? (
          <Button variant="secondary" className="px-3 py-1.5" onClick={moderation('unban')}>
            Unban
          </Button>
        ) : (
          <ConfirmButton
            label="Ban"
            confirmLabel="Yes, ban"
            question="Ban them from Discord and the Telegram chats, and revoke their invites and links?"
            variant="danger"
            onConfirm={moderation('ban')}
          />
        )}
      </div>
    </div>
  )
}
