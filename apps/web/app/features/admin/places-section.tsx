import { type Place, PlaceSchema } from '@edgeclub/shared'
import { useId, useState } from 'react'
import { z } from 'zod'
import { Button } from '../../components/ui/button'
import {
  ConfirmButton,
  failureText,
  Notice,
  type NoticeState,
  useConsoleAction,
} from '../../components/ui/console'
import { Alert, inputClasses, SelectInput } from '../../components/ui/field'
import { Panel } from '../../components/ui/panel'
import { act } from './admin-api'
import { useDiscordRoleOptions, usePlaces } from './places-api'

/** "NFL, NBA" ⇄ ['NFL', 'NBA']; empty is every category. */
const categoriesOf = (text: string): 'all' | string[] => {
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean)
  return names.length === 0 ? 'all' : names
}
const categoriesText = (categories: Place['signalCategories']) =>
  categories === 'all' ? '' : categories.join(', ')

/** A Telegram chat's signal categories, edited in place. */
function ChatCategories({ place, onSaved }: { place: Place; onSaved: (notice: NoticeState) => void }) {
  const [text, setText] = useState(categoriesText(place.signalCategories))
  const id = useId()
  const save = async () => {
    try {
      const { message } = await act(`/admin/places/${place.id}`, 'PUT', PlaceSchema, {
        signalCategories: categoriesOf(text),
      })
      onSaved({ tone: 'success', text: `${message}: ${place.title}` })
    } catch (error) {
      onSaved({ tone: 'error', text: failureText(error) })
    }
  }
  return (
    <div className="flex flex-wrap items-end gap-2">
      <div>
        <label htmlFor={id} className="mb-1 block text-xs text-slate-400">
          Signals posted here (categories, comma-separated; empty: all)
        </label>
        <input
          id={id}
          className={inputClasses}
          value={text}
          onChange={(event) => setText(event.target.value)}
        />
      </div>
      <Button variant="secondary" className="px-3 py-1.5" onClick={save}>
        Save<span className="sr-only"> categories of {place.title}</span>
      </Button>
    </div>
  )
}

/**
 * Places: the Discord roles and Telegram chats the club's plans can open. Chats are added by id or
 * @username once the bot administers them; roles from the server's roles the bot can give.
 */
export function PlacesSection() {
  const overview = usePlaces()
  const roles = useDiscordRoleOptions(Boolean(overview.data?.discordConfigured))
  const { notice, setNotice, run, reload } = useConsoleAction(['admin'])
  const [chat, setChat] = useState('')
  const [chatCategories, setChatCategories] = useState('')
  const [roleId, setRoleId] = useState('')
  const ids = useId()
  const data = overview.data
  const unlisted = (roles.data ?? []).filter((role) => !role.listed)

  return (
    <div className="space-y-4">
      <Notice notice={notice} />
      <Panel
        title="Places"
        description="What plans can open. A plan grants every place of a kind unless you choose some in its editor."
      >
        {overview.isPending ? <p className="text-sm text-slate-300">Loading places...</p> : null}
        {overview.isError ? <Alert tone="error">{overview.error.message}</Alert> : null}
        {data && data.places.length === 0 ? (
          <p className="text-sm text-slate-300">
            No places yet: add a Telegram chat or a Discord role below.
          </p>
        ) : null}
        <ul className="divide-y divide-slate-800" aria-label="Places">
          {data?.places.map((place) => (
            <li key={place.id} className="space-y-2 py-3">
              <div className="flex flex-wrap items-center justify-between gap-3">
                <div>
                  <p className="font-semibold text-white">
                    {place.title}{' '}
                    <span className="text-sm font-normal text-slate-400">
                      ({place.kind === 'discord_role' ? 'Discord role' : 'Telegram chat'} {place.externalId}
                      {place.builtIn ? ', DISCORD_MEMBER_ROLE_ID' : ''})
                    </span>
                  </p>
                  <p className="text-sm text-slate-300">
                    Opened by: {place.plans.length > 0 ? place.plans.join(', ') : 'no plan'}
                  </p>
                </div>
                {place.builtIn ? null : (
                  <ConfirmButton
                    label="Remove"
                    context={place.title}
                    confirmLabel="Yes, remove"
                    question={`Stop offering ${place.title}? Plans no longer open it; nobody is removed from it.`}
                    variant="danger"
                    onConfirm={() =>
                      run(
                        async () =>
                          (
                            await act(
                              `/admin/places/${place.id}`,
                              'DELETE',
                              z.object({ removed: z.boolean() }),
                            )
                          ).message,
                      )
                    }
                  />
                )}
              </div>
              {place.kind === 'telegram_chat' ? (
                <ChatCategories
                  place={place}
                  onSaved={(saved) => {
                    setNotice(saved)
                    void reload()
                  }}
                />
              ) : null}
            </li>
          ))}
        </ul>
      </Panel>
      {data?.telegramConfigured ? (
        <Panel
          title="Add a Telegram chat"
          description="Make the bot an administrator of the group or channel (invite users, ban users; post messages in a channel), then enter its id or @username."
        >
          <form
            className="flex flex-wrap items-end gap-3"
            onSubmit={(event) => {
              event.preventDefault()
              void run(async () => {
                const added = await act('/admin/places', 'POST', PlaceSchema, {
                  kind: 'telegram_chat',
                  chat: chat.trim(),
                  signalCategories: categoriesOf(chatCategories),
                })
                setChat('')
                setChatCategories('')
                return added.message
              })
            }}
          >
            <div>
              <label htmlFor={`${ids}-chat`} className="mb-1 block text-sm text-slate-300">
                Chat id or @username
              </label>
              <input
                id={`${ids}-chat`}
                className={inputClasses}
                value={chat}
                placeholder="-1001234567890"
                onChange={(event) => setChat(event.target.value)}
              />
            </div>
            <div>
              <label htmlFor={`${ids}-categories`} className="mb-1 block text-sm text-slate-300">
                Signals posted there (empty: all)
              </label>
              <input
                id={`${ids}-categories`}
                className={inputClasses}
                value={chatCategories}
                placeholder="NFL, NBA"
                onChange={(event) => setChatCategories(event.target.value)}
              />
            </div>
            <Button type="submit">Add Chat</Button>
          </form>
        </Panel>
      ) : null}
      {data?.discordConfigured ? (
        <Panel title="Add a Discord role" description="Roles below the bot's own that it can give.">
          <div className="flex flex-wrap items-end gap-3">
            <div>
              <label htmlFor={`${ids}-role`} className="mb-1 block text-sm text-slate-300">
                Role
              </label>
              <SelectInput
                id={`${ids}-role`}
                value={roleId}
                onChange={(event) => setRoleId(event.target.value)}
              >
                <option value="">Choose a role</option>
                {unlisted.map((role) => (
                  <option key={role.id} value={role.id}>
                    {role.name}
                  </option>
                ))}
              </SelectInput>
            </div>
            <Button
              disabled={!roleId}
              onClick={() =>
                run(async () => {
                  const added = await act('/admin/places', 'POST', PlaceSchema, {
                    kind: 'discord_role',
                    roleId,
                  })
                  setRoleId('')
                  return added.message
                })
              }
            >
              Add Role
            </Button>
          </div>
        </Panel>
      ) : null}
    </div>
  )
}
