import { useEffect, useState } from 'react'
import { Button } from '../../components/ui/button'
import type { WitnessOutcome } from './record-witness-check'

/** After the first paint and when the browser is idle: the page itself never waits for the check. */
function afterPaint(run: () => void): () => void {
  const idle = (
    window as {
      requestIdleCallback?: (callback: () => void, options: { timeout: number }) => number
    }
  ).requestIdleCallback
  let handle = 0
  const frame = requestAnimationFrame(() => {
    // A busy page (the live feed, queries) still gets its check within two seconds.
    handle = idle ? idle(run, { timeout: 2_000 }) : window.setTimeout(run, 200)
  })
  return () => {
    cancelAnimationFrame(frame)
    if (!idle) clearTimeout(handle)
  }
}

function downloadEvidence(evidence: unknown) {
  const url = URL.createObjectURL(new Blob([JSON.stringify(evidence, null, 2)], { type: 'application/json' }))
  const link = document.createElement('a')
  link.href = url
  link.download = 'edgeclub-record-evidence.json'
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

/**
 * This browser as a witness of the record: on every visit it checks that today's signed head extends
 * the one it kept (record-witness-check.ts, loaded lazily). The result is always shown: a line when it
 * holds or cannot run, an unmissable warning fixed to the screen when it fails. The line keeps room
 * for the result (three lines on a phone, two wider) while 'Checking…' shows, so the result arriving
 * does not push the page down.
 */
export function RecordWitness() {
  const [outcome, setOutcome] = useState<WitnessOutcome | null>(null)
  useEffect(() => {
    let live = true
    const cancel = afterPaint(() => {
      void import('./record-witness-check')
        .then((module) => module.runWitnessCheck())
        .catch(() => ({ status: 'unavailable', reason: 'The record check could not run.' }) as const)
        .then((result) => {
          if (live) setOutcome(result)
        })
    })
    return () => {
      live = false
      cancel()
    }
  }, [])

  // One status line from the first paint on, its words replaced in place: a screen reader announces a
  // live region's change only if the region was there before it, and the browser counts the line's
  // first paint (the tab's), not the check's result arriving later, as its largest paint.
  const line =
    outcome === null
      ? { tone: 'text-slate-400', text: 'Checking the record against the last head this browser saw...' }
      : outcome.status === 'ok'
        ? {
            tone: 'text-emerald-300',
            text: outcome.since
              ? `Record checked: its signed head #${outcome.head.size} extends head #${outcome.since.size}, the one this browser kept from your last visit.`
              : `Record checked: signed head #${outcome.head.size} verified. This browser keeps it to check the record on your next visit.`,
          }
        : outcome.status === 'unavailable'
          ? { tone: 'text-amber-200', text: `Record not checked: ${outcome.reason}` }
          : { tone: '', text: '' }

  return (
    <div className="min-h-15 text-sm sm:min-h-10">
      <p role="status" className={line.tone}>
        {line.text}
      </p>
      {outcome?.status === 'failed' && (
        <div
          role="alert"
          className="fixed inset-x-0 bottom-0 z-50 border-t-4 border-rose-500 bg-rose-950 p-5 text-rose-50 shadow-2xl"
        >
          <div className="mx-auto flex max-w-5xl flex-wrap items-center gap-4">
            <div className="min-w-64 flex-1">
              <p className="text-lg font-bold">
                Warning: the record's history has changed since your last visit.
              </p>
              <p className="mt-1">{outcome.problem}</p>
              <p className="mt-1 text-rose-200">
                Keep the evidence: it holds both signed heads and the proof, and anyone can check it.
              </p>
            </div>
            <Button variant="danger" onClick={() => downloadEvidence(outcome.evidence)}>
              Download evidence
            </Button>
          </div>
        </div>
      )}
    </div>
  )
}
