import type { Place, PlanPlaces } from '@edgeclub/shared'
import { useId, useState } from 'react'
import { inputClasses } from '../../components/ui/field'
import { usePlaces } from './places-api'

type Choice = 'all' | string[]

/** One kind of place: every one (the default) or the ones ticked. */
function ChoiceGroup({
  legend,
  choice,
  options,
  allLabel,
  onChange,
  extra,
}: {
  legend: string
  choice: Choice
  options: { value: string; label: string }[]
  allLabel: string
  onChange: (choice: Choice) => void
  extra?: React.ReactNode
}) {
  const name = useId()
  const chosen = choice === 'all' ? [] : choice
  return (
    <fieldset className="space-y-2 rounded-xl border border-slate-800 p-3">
      <legend className="px-1 text-sm font-semibold text-slate-200">{legend}</legend>
      <label className="flex items-center gap-2 text-sm text-slate-200">
        <input
          type="radio"
          name={name}
          className="accent-emerald-400"
          checked={choice === 'all'}
          onChange={() => onChange('all')}
        />
        {allLabel}
      </label>
      <label className="flex items-center gap-2 text-sm text-slate-200">
        <input
          type="radio"
          name={name}
          className="accent-emerald-400"
          checked={choice !== 'all'}
          onChange={() => onChange(options.map((option) => option.value))}
        />
        Only these
      </label>
      {choice === 'all' ? null : (
        <div className="ml-6 space-y-1">
          {options.length === 0 ? <p className="text-sm text-slate-400">None yet.</p> : null}
          {options.map((option) => (
            <label key={option.value} className="flex items-center gap-2 text-sm text-slate-200">
              <input
                type="checkbox"
                className="h-4 w-4 accent-emerald-400"
                checked={chosen.includes(option.value)}
                onChange={(event) =>
                  onChange(
                    event.target.checked
                      ? [...chosen, option.value]
                      : chosen.filter((value) => value !== option.value),
                  )
                }
              />
              {option.label}
            </label>
          ))}
          {extra}
        </div>
      )}
    </fieldset>
  )
}

const optionsOf = (places: Place[], kind: Place['kind']) =>
  places.filter((place) => place.kind === kind).map((place) => ({ value: place.id, label: place.title }))

/**
 * The plans editor's places: which Discord roles, Telegram chats and signal categories the plan opens.
 * Every one of a kind is the default, so a plan made before places keeps granting what it did.
 */
export function PlanPlacesField({
  value,
  onChange,
  error,
}: {
  value: PlanPlaces
  onChange: (places: PlanPlaces) => void
  error?: string
}) {
  const overview = usePlaces()
  const [newCategory, setNewCategory] = useState('')
  const categoryId = useId()
  const places = overview.data?.places ?? []
  const chosenCategories = value.signalCategories === 'all' ? [] : value.signalCategories
  const categories = [...new Set([...(overview.data?.categories ?? []), ...chosenCategories])]

  return (
    <div className="space-y-3">
      <p className="text-sm font-semibold text-slate-200">What the plan opens</p>
      {error ? <p className="text-sm text-rose-300">{error}</p> : null}
      {overview.data?.discordConfigured ? (
        <ChoiceGroup
          legend="Discord roles"
          choice={value.discordRoles}
          options={optionsOf(places, 'discord_role')}
          allLabel="All roles in Places"
          onChange={(discordRoles) => onChange({ ...value, discordRoles })}
        />
      ) : null}
      {overview.data?.telegramConfigured ? (
        <ChoiceGroup
          legend="Telegram chats"
          choice={value.telegramChats}
          options={optionsOf(places, 'telegram_chat')}
          allLabel="All chats in Places"
          onChange={(telegramChats) => onChange({ ...value, telegramChats })}
        />
      ) : null}
      <ChoiceGroup
        legend="Signal categories"
        choice={value.signalCategories}
        options={categories.map((category) => ({ value: category, label: category }))}
        allLabel="All categories (all picks and signals)"
        onChange={(signalCategories) => onChange({ ...value, signalCategories })}
        extra={
          <div className="flex items-end gap-2 pt-1">
            <div>
              <label htmlFor={categoryId} className="mb-1 block text-xs text-slate-400">
                Another category (a sport or instrument)
              </label>
              <input
                id={categoryId}
                className={inputClasses}
                value={newCategory}
                maxLength={20}
                onChange={(event) => setNewCategory(event.target.value)}
              />
            </div>
            <button
              type="button"
              className="rounded-md px-3 py-2 text-sm font-semibold text-emerald-300 hover:bg-slate-800"
              onClick={() => {
                const name = newCategory.trim()
                if (!name) return
                onChange({ ...value, signalCategories: [...new Set([...chosenCategories, name])] })
                setNewCategory('')
              }}
            >
              Add
            </button>
          </div>
        }
      />
    </div>
  )
}
