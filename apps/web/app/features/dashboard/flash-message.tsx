import { useEffect, useState } from 'react'
import { useLocation, useNavigate } from 'react-router'
import { Alert } from '../../components/ui/field'
import { type FlashState, flashOf } from '../../lib/navigation-state'

/**
 * A message passed in navigation state shows for 5 seconds. It is taken out of the history entry at
 * once (anything else the state carries stays), so Back, Forward or a reload never shows it twice.
 */
const FLASH_MS = 5_000

export function FlashMessage() {
  const location = useLocation()
  const navigate = useNavigate()
  const [flash, setFlash] = useState<FlashState | null>(() => flashOf(location.state))

  useEffect(() => {
    const incoming = flashOf(location.state)
    if (!incoming) return
    setFlash(incoming)
    const { message: _message, type: _type, ...rest } = (location.state ?? {}) as Record<string, unknown>
    navigate(`${location.pathname}${location.search}`, {
      replace: true,
      state: Object.keys(rest).length > 0 ? rest : null,
    })
  }, [location.state, location.pathname, location.search, navigate])

  useEffect(() => {
    if (!flash) return
    const timer = setTimeout(() => setFlash(null), FLASH_MS)
    return () => clearTimeout(timer)
  }, [flash])

  if (!flash?.message) return null
  const tone =
    flash.type === 'warning'
      ? 'warning'
      : flash.type === 'error'
        ? 'error'
        : flash.type === 'info'
          ? 'info'
          : 'success'
  return <Alert tone={tone}>{flash.message}</Alert>
}
