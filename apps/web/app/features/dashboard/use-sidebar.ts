import { useCallback, useEffect, useState } from 'react'
import { STORAGE_KEYS } from '../../lib/storage-keys'

/** The width from which the sidebar is open by default. */
const SIDEBAR_BREAKPOINT = 1024

const isWide = () => window.innerWidth >= SIDEBAR_BREAKPOINT

/**
 * Open by default at 1024 px or wider, unless the member toggled it by hand; that choice
 * is kept in sessionStorage ('sidebarToggled': 'true' open, 'false' closed). On small screens it
 * collapses after a tab is chosen.
 */
export function useSidebar() {
  const [open, setOpen] = useState(() => {
    const manual = sessionStorage.getItem(STORAGE_KEYS.sidebarToggled)
    return manual === null ? isWide() : manual === 'true'
  })

  useEffect(() => {
    const onResize = () => {
      if (sessionStorage.getItem(STORAGE_KEYS.sidebarToggled) === null) setOpen(isWide())
    }
    window.addEventListener('resize', onResize)
    return () => window.removeEventListener('resize', onResize)
  }, [])

  const toggle = useCallback(() => {
    setOpen((current) => {
      sessionStorage.setItem(STORAGE_KEYS.sidebarToggled, String(!current))
      return !current
    })
  }, [])

  const afterTabChosen = useCallback(() => {
    if (!isWide()) setOpen(false)
  }, [])

  return { open, toggle, afterTabChosen }
}
