import type { AdminUser } from '@edgeclub/shared'
import { Button } from '../../components/ui/button'
import { ConfirmButton, type RunAction } from '../../components/ui/console'
import { setMemberDisabled, setMemberRole } from './members-api'

/**
 * Grant or remove the analyst role (publishes and settles signals, nothing else), promote or demote,
 * disable or enable the account. An admin cannot demote or disable themself. Every change is audited.
 */
export function AccountActions({
  user,
  name,
  self,
  run,
}: {
  user: AdminUser
  /** How the questions name the member. */
  name: string
  /** The member is the signed-in admin. */
  self: boolean
  run: RunAction
}) {
  const role = (next: AdminUser['role']) => () =>
    run(async () => (await setMemberRole(user.id, next)).message)
  const disabled = (next: boolean) => () => run(async () => (await setMemberDisabled(user.id, next)).message)

  return (
    <div className="space-y-2">
      <h3 className="text-sm font-semibold text-slate-200">Account</h3>
      <div className="flex flex-wrap items-start gap-2">
        {user.role === 'member' ? (
          <ConfirmButton
            label="Make analyst"
            confirmLabel="Yes, make analyst"
            question={`Let ${name} publish, settle and void signals? Analysts have no other admin powers.`}
            onConfirm={role('analyst')}
          />
        ) : null}
        {user.role === 'analyst' ? (
          <ConfirmButton
            label="Remove analyst role"
            confirmLabel="Yes, remove"
            question={`Stop ${name} from publishing and settling signals? They keep their membership.`}
            onConfirm={role('member')}
          />
        ) : null}
        {user.role === 'admin' ? (
          <ConfirmButton
            label="Demote to member"
            confirmLabel="Yes, demote"
            question={`Remove ${name}'s admin rights?`}
            disabled={self}
            onConfirm={role('member')}
          />
        ) : (
          <ConfirmButton
            label="Promote to admin"
            confirmLabel="Yes, promote"
            question={`Give ${name} full admin rights?`}
            onConfirm={role('admin')}
          />
        )}
        {user.disabled ? (
          <Button variant="secondary" className="px-3 py-1.5" onClick={disabled(false)}>
            Enable account
          </Button>
        ) : (
          <ConfirmButton
            label="Disable account"
            confirmLabel="Yes, disable"
            question="Sign them out everywhere and block sign-in?"
            variant="danger"
            disabled={self}
            onConfirm={disabled(true)}
          />
        )}
      </div>
      {self ? <p className="text-xs text-slate-400">You cannot demote or disable your own account.</p> : null}
    </div>
  )
}
