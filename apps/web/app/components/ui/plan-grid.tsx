import { type Plan, yearlySaving } from '@edgeclub/shared'
import { PlanCard } from './plan-card'

/** Cards in the order given; the yearly card gets its saving against the monthly plan. */
export function PlanGrid({
  plans,
  onChoose,
  labelFor,
  isDisabled,
  secondaryFor,
  noteFor,
}: {
  plans: Plan[]
  onChoose?: (plan: Plan) => void
  labelFor?: (plan: Plan) => string | undefined
  isDisabled?: (plan: Plan) => boolean
  secondaryFor?: (plan: Plan) => { label: string; onClick: () => void } | undefined
  /** A plan that offers nothing to buy says why instead (see PlanCard's note). */
  noteFor?: (plan: Plan) => string | undefined
}) {
  const monthly = plans.find((plan) => plan.slug === 'monthly')
  return (
    <ul className="grid gap-6 sm:grid-cols-2 xl:grid-cols-4">
      {plans.map((plan) => (
        <li key={plan.id}>
          <PlanCard
            plan={plan}
            saving={plan.slug === 'yearly' ? yearlySaving(plan, monthly) : null}
            onChoose={onChoose}
            actionLabel={labelFor?.(plan)}
            disabled={isDisabled?.(plan) ?? false}
            secondary={secondaryFor?.(plan)}
            note={noteFor?.(plan)}
          />
        </li>
      ))}
    </ul>
  )
}
