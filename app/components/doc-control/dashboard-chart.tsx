import { useId } from 'react'
import { DataTable } from '~/components/ui/data-table'
import type { DocControlSummary } from '~/lib/doc-control/types'
import { formatNumber } from '~/lib/format'

type Point = DocControlSummary['issuedVsPlanned'][number]

const WIDTH = 640
const HEIGHT = 280
const MARGIN = { top: 16, right: 16, bottom: 48, left: 44 }
/** Month labels under the axis: at most this many, so they never overlap on a phone. */
const MAX_LABELS = 12

function monthLabel(month: string, locale: string): string {
  return new Intl.DateTimeFormat(locale, { month: 'short', year: '2-digit', timeZone: 'UTC' }).format(new Date(`${month}-01T00:00:00Z`))
}

/** A round top for the axis (1, 2, 5 × 10ⁿ) at or above the largest value. */
function niceMax(value: number): number {
  if (value <= 5) return Math.max(1, value)
  const power = 10 ** Math.floor(Math.log10(value))
  const step = [1, 2, 5, 10].find((m) => m * power >= value) ?? 10
  return step * power
}

/**
 * Issued against planned deliverables, cumulative per month, drawn on the server as SVG (no chart
 * script): planned a dashed line with squares, issued a solid line with circles (shape and dash,
 * not colour alone, tell them apart). The image has a title and a description that says what it
 * shows; the same figures follow as a table for anyone who cannot see it.
 */
export function DashboardChart({ points, locale }: { points: readonly Point[]; locale: string }) {
  const titleId = useId()
  const descId = useId()
  if (points.length === 0) return null
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom
  const top = niceMax(Math.max(...points.map((p) => Math.max(p.planned, p.issued))))
  const x = (index: number) => MARGIN.left + (points.length === 1 ? plotWidth / 2 : (index * plotWidth) / (points.length - 1))
  const y = (value: number) => MARGIN.top + plotHeight - (value / top) * plotHeight
  const line = (key: 'planned' | 'issued') => points.map((p, i) => `${x(i).toFixed(1)},${y(p[key]).toFixed(1)}`).join(' ')
  const ticks = [0, top / 2, top].filter((v, i, all) => Number.isInteger(v) && all.indexOf(v) === i)
  const every = Math.ceil(points.length / MAX_LABELS)
  const first = points[0] as Point
  const last = points[points.length - 1] as Point
  const description = `Cumulative deliverables per month from ${monthLabel(first.month, locale)} to ${monthLabel(last.month, locale)}. By ${monthLabel(last.month, locale)}: ${formatNumber(last.planned, locale)} planned, ${formatNumber(last.issued, locale)} issued.`
  return (
    <figure className="flex flex-col gap-4">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby={`${titleId} ${descId}`} className="h-auto w-full max-w-3xl" data-chart="issued-vs-planned">
        <title id={titleId}>Issued vs planned deliverables</title>
        <desc id={descId}>{description}</desc>
        {ticks.map((tick) => (
          <g key={tick}>
            <line x1={MARGIN.left} x2={WIDTH - MARGIN.right} y1={y(tick)} y2={y(tick)} className="stroke-border" strokeWidth={1} />
            <text x={MARGIN.left - 8} y={y(tick) + 4} textAnchor="end" className="fill-muted text-[11px]">
              {formatNumber(tick, locale)}
            </text>
          </g>
        ))}
        {points.map((p, i) =>
          i % every === 0 || i === points.length - 1 ? (
            <text key={p.month} x={x(i)} y={HEIGHT - MARGIN.bottom + 18} textAnchor="middle" className="fill-muted text-[11px]">
              {monthLabel(p.month, locale)}
            </text>
          ) : null,
        )}
        <polyline points={line('planned')} fill="none" className="stroke-muted" strokeWidth={2} strokeDasharray="6 4" />
        <polyline points={line('issued')} fill="none" className="stroke-primary" strokeWidth={2.5} />
        {points.map((p, i) => (
          <g key={p.month}>
            <rect x={x(i) - 3.5} y={y(p.planned) - 3.5} width={7} height={7} className="fill-muted" />
            <circle cx={x(i)} cy={y(p.issued)} r={4} className="fill-primary" />
          </g>
        ))}
        <g transform={`translate(${MARGIN.left}, ${HEIGHT - 12})`} className="text-[12px]">
          <line x1={0} x2={24} y1={-4} y2={-4} className="stroke-muted" strokeWidth={2} strokeDasharray="6 4" />
          <text x={30} y={0} className="fill-text">
            Planned
          </text>
          <line x1={110} x2={134} y1={-4} y2={-4} className="stroke-primary" strokeWidth={2.5} />
          <text x={140} y={0} className="fill-text">
            Issued
          </text>
        </g>
      </svg>
      <figcaption className="text-sm text-muted">{description}</figcaption>
      <DataTable
        caption="Issued vs planned by month (cumulative)"
        columns={[
          { key: 'month', header: 'Month', rowHeader: true, cell: (p: Point) => monthLabel(p.month, locale) },
          { key: 'planned', header: 'Planned', align: 'end', cell: (p: Point) => formatNumber(p.planned, locale) },
          { key: 'issued', header: 'Issued', align: 'end', cell: (p: Point) => formatNumber(p.issued, locale) },
        ]}
        rows={points}
        rowKey={(p) => p.month}
      />
    </figure>
  )
}
