import { count, formatDay, formatUnits } from '@edgeclub/shared'

const WIDTH = 880
const HEIGHT = 260
const PAD = { top: 16, right: 12, bottom: 24, left: 56 }

/**
 * Where the line passes: x by settlement order, y by cumulative units, starting from 0 before the
 * first settlement; 0 is always in view (its height is `zeroY`).
 */
export function chartPoints(units: number[]): { line: { x: number; y: number }[]; zeroY: number } {
  const values = [0, ...units]
  const max = Math.max(...values)
  const min = Math.min(...values)
  const span = max - min || 1
  const innerWidth = WIDTH - PAD.left - PAD.right
  const innerHeight = HEIGHT - PAD.top - PAD.bottom
  const y = (value: number) => PAD.top + ((max - value) / span) * innerHeight
  return {
    line: values.map((value, index) => ({
      x: PAD.left + (values.length === 1 ? 0 : (index / (values.length - 1)) * innerWidth),
      y: y(value),
    })),
    zeroY: y(0),
  }
}

/**
 * Cumulative profit in units after each settlement, as an inline SVG (no chart library): the line
 * starts at 0 before the first settlement; the caption says the same in words for screen readers.
 */
export function UnitsChart({
  points,
  title,
}: {
  points: { seq: number; at: string; units: number }[]
  /** What the chart shows, e.g. "Cumulative units, every settled signal". */
  title: string
}) {
  if (points.length === 0) {
    return (
      <p className="rounded-xl border border-dashed border-slate-700 p-6 text-center text-sm text-slate-300">
        Nothing settled yet: the chart starts with the first settlement.
      </p>
    )
  }
  const units = points.map((point) => point.units)
  const { line, zeroY } = chartPoints(units)
  const max = Math.max(0, ...units)
  const min = Math.min(0, ...units)
  const last = points.at(-1)!
  const summary = `${title}: ${formatUnits(last.units)} after ${count(points.length, 'settlement')}, from ${formatDay(points[0]?.at)} to ${formatDay(last.at)}; lowest ${formatUnits(min)}, highest ${formatUnits(max)}.`
  const positive = last.units >= 0
  return (
    <figure>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} className="h-auto w-full" role="img" aria-label={summary}>
        <line
          x1={PAD.left}
          x2={WIDTH - PAD.right}
          y1={zeroY}
          y2={zeroY}
          className="stroke-slate-600"
          strokeDasharray="4 4"
        />
        {max > 0 && zeroY - PAD.top > 14 ? (
          <text x={PAD.left - 8} y={PAD.top + 4} textAnchor="end" className="fill-slate-400 text-[11px]">
            {formatUnits(max)}
          </text>
        ) : null}
        {min < 0 && HEIGHT - PAD.bottom - zeroY > 14 ? (
          <text
            x={PAD.left - 8}
            y={HEIGHT - PAD.bottom + 4}
            textAnchor="end"
            className="fill-slate-400 text-[11px]"
          >
            {formatUnits(min)}
          </text>
        ) : null}
        <text x={PAD.left - 8} y={zeroY + 4} textAnchor="end" className="fill-slate-400 text-[11px]">
          0 u
        </text>
        <polyline
          points={line.map((point) => `${point.x.toFixed(1)},${point.y.toFixed(1)}`).join(' ')}
          fill="none"
          strokeWidth="2.5"
          strokeLinejoin="round"
          strokeLinecap="round"
          className={positive ? 'stroke-emerald-400' : 'stroke-rose-400'}
        />
        <text x={PAD.left} y={HEIGHT - 6} className="fill-slate-400 text-[11px]">
          {formatDay(points[0]?.at)}
        </text>
        <text x={WIDTH - PAD.right} y={HEIGHT - 6} textAnchor="end" className="fill-slate-400 text-[11px]">
          {formatDay(last.at)}
        </text>
      </svg>
      <figcaption className="mt-2 text-sm text-slate-300">{summary}</figcaption>
    </figure>
  )
}
