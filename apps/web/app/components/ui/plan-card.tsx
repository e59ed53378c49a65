import { formatMoney, intervalText, type Plan, savingText, subscribeLabel, trialText } from '@edgeclub/shared'
import { Button } from './button'
import { CheckIcon } from './icons'
import { Badge } from './layout'

/** One pricing card: name, price, interval text, features, badges and the button. */
export function PlanCard({
  plan,
  saving,
  onChoose,
  actionLabel,
  disabled = false,
  secondary,
  note,
}: {
  plan: Plan
  /** What the yearly plan saves against twelve monthly payments, if anything. */
  saving: number | null
  onChoose?: (plan: Plan) => void
  actionLabel?: string
  disabled?: boolean
  /** A second way to buy (e.g. Pay with crypto), under the main button. */
  secondary?: { label: string; onClick: () => void }
  /** Instead of any button: what this plan is to the member (e.g. "Current plan"). */
  note?: string
}) {
  const interval = intervalText(plan)
  const trial = trialText(plan)
  const headingId = `plan-${plan.id}-name`
  return (
    <article
      aria-labelledby={headingId}
      className={`relative flex h-full flex-col rounded-2xl border bg-slate-900/80 p-6 ${
        plan.isPopular ? 'border-emerald-400 shadow-lg shadow-emerald-500/10' : 'border-slate-800'
      }`}
    >
      <div className="flex min-h-7 flex-wrap gap-2">
        {plan.isPopular ? <Badge>MOST POPULAR</Badge> : null}
        {plan.interval === 'lifetime' ? <Badge tone="amber">Best Value</Badge> : null}
      </div>
      <h3 id={headingId} className="mt-3 text-xl font-bold text-white">
        {plan.name}
      </h3>
      {plan.description ? <p className="mt-1 text-sm text-slate-300">{plan.description}</p> : null}
      <p className="mt-5 flex items-baseline gap-2">
        <span className="text-4xl font-extrabold tracking-tight text-white">
          {formatMoney(plan.price, plan.currency)}
        </span>
        {interval ? <span className="text-sm text-slate-400">{interval}</span> : null}
      </p>
      {trial ? <p className="mt-2 text-sm font-semibold text-sky-300">{trial}</p> : null}
      {saving !== null ? (
        <p className="mt-2 text-sm font-semibold text-emerald-300">{savingText(saving, plan.currency)}</p>
      ) : null}
      <ul className="mt-6 flex-1 space-y-3" aria-label={`${plan.name} features`}>
        {plan.features.map((feature) => (
          <li key={feature} className="flex gap-2 text-sm text-slate-200">
            <CheckIcon className="h-5 w-5 shrink-0 text-emerald-300" />
            <span>{feature}</span>
          </li>
        ))}
      </ul>
      {note ? (
        <p className="mt-8 rounded-lg border border-emerald-400/40 bg-emerald-400/10 px-4 py-2.5 text-center text-sm font-semibold text-emerald-200">
          {note}
        </p>
      ) : null}
      {onChoose && !note ? (
        <Button
          className="mt-8 w-full"
          variant={plan.isPopular ? 'primary' : 'secondary'}
          onClick={() => onChoose(plan)}
          disabled={disabled}
        >
          {actionLabel ?? subscribeLabel(plan)}
        </Button>
      ) : null}
      {secondary ? (
        <Button className="mt-3 w-full" variant="ghost" onClick={secondary.onClick} disabled={disabled}>
          {secondary.label}
        </Button>
      ) : null}
    </article>
  )
}
