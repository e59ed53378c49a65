import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { afterNextPaint } from './after-first-screen'

/** The browser's frames, by hand: each frame's callbacks run before its paint. */
let frames: Map<number, () => void>
let nextFrame = 1
const paintFrame = () => {
  const due = [...frames.values()]
  frames.clear()
  for (const callback of due) callback()
}

describe('afterNextPaint (the Signals tab opens its live stream with it)', () => {
  beforeEach(() => {
    vi.useFakeTimers()
    frames = new Map()
    vi.stubGlobal('requestAnimationFrame', (callback: () => void) => {
      frames.set(nextFrame, callback)
      return nextFrame++
    })
    vi.stubGlobal('cancelAnimationFrame', (id: number) => frames.delete(id))
  })
  afterEach(() => {
    vi.useRealTimers()
    vi.unstubAllGlobals()
  })

  it('runs right after the frame being rendered is on screen, not before it, and once', () => {
    const run = vi.fn()
    afterNextPaint(run)
    expect(run).not.toHaveBeenCalled()
    paintFrame()
    // A frame's callbacks run before it is painted: the work waits for the next frame, and the task
    // after that frame's callbacks.
    vi.advanceTimersByTime(0)
    expect(run).not.toHaveBeenCalled()
    paintFrame()
    expect(run).not.toHaveBeenCalled()
    vi.advanceTimersByTime(0)
    expect(run).toHaveBeenCalledTimes(1)
    vi.advanceTimersByTime(1_000)
    paintFrame()
    expect(run).toHaveBeenCalledTimes(1)
  })

  it('still runs within 100 ms on a page that paints no frames (a tab in the background)', () => {
    const run = vi.fn()
    afterNextPaint(run)
    vi.advanceTimersByTime(99)
    expect(run).not.toHaveBeenCalled()
    vi.advanceTimersByTime(1)
    expect(run).toHaveBeenCalledTimes(1)
    paintFrame()
    vi.advanceTimersByTime(100)
    expect(run).toHaveBeenCalledTimes(1)
  })

  it('runs nothing once cancelled (the tab closed first)', () => {
    const run = vi.fn()
    const cancel = afterNextPaint(run)
    cancel()
    paintFrame()
    vi.advanceTimersByTime(1_000)
    expect(run).not.toHaveBeenCalled()
  })
})
