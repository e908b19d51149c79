import { useId } from 'react'
import { DataTable } from '~/components/ui/data-table'
import { droppedOf, type IngestDay } from '~/lib/admin/telemetry'
import { formatNumber } from '~/lib/format'

const WIDTH = 640
const HEIGHT = 240
const MARGIN = { top: 16, right: 12, bottom: 44, left: 44 }

type Day = { day: string; accepted: number; dropped: number }

function dayLabel(day: string, locale: string): string {
  return new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', timeZone: 'UTC' }).format(new Date(`${day}T00:00:00Z`))
}

/** A round top for the axis (1, 2, 5 × 10ⁿ) at or above the largest value. */
function niceMax(value: number): number {
  if (value <= 5) return Math.max(1, value)
  const power = 10 ** Math.floor(Math.log10(value))
  return ([1, 2, 5, 10].find((m) => m * power >= value) ?? 10) * power
}

/** Events and errors together, per day. */
export function ingestDays(days: readonly IngestDay[]): Day[] {
  return days.map((d) => ({ day: d.day, accepted: d.events.accepted + d.errors.accepted, dropped: droppedOf(d.events) + droppedOf(d.errors) }))
}

/**
 * What the telemetry calls took in per UTC day, accepted beside dropped, drawn on the server as
 * SVG (no chart script). Dropped bars are hatched as well as coloured, so the two differ without
 * colour. The image has a title and a description; the same figures follow as a table.
 */
export function TelemetryChart({ days, locale, caption }: { days: readonly IngestDay[]; locale: string; caption: string }) {
  const titleId = useId()
  const descId = useId()
  const hatchId = useId().replaceAll(':', '')
  const rows = ingestDays(days)
  if (rows.length === 0) return null
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom
  const top = niceMax(Math.max(...rows.map((r) => Math.max(r.accepted, r.dropped))))
  const slot = plotWidth / rows.length
  const bar = Math.max(2, Math.min(14, slot / 2 - 2))
  const y = (value: number) => MARGIN.top + plotHeight - (value / top) * plotHeight
  const ticks = [0, top / 2, top].filter((v, i, all) => Number.isInteger(v) && all.indexOf(v) === i)
  const every = Math.ceil(rows.length / 7)
  const accepted = rows.reduce((n, r) => n + r.accepted, 0)
  const dropped = rows.reduce((n, r) => n + r.dropped, 0)
  const first = rows[0] as Day
  const last = rows[rows.length - 1] as Day
  const description = `${caption}, per day from ${dayLabel(first.day, locale)} to ${dayLabel(last.day, locale)}: ${formatNumber(accepted, locale)} accepted and ${formatNumber(dropped, locale)} dropped in all.`
  return (
    <figure className="flex flex-col gap-4">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby={`${titleId} ${descId}`} className="h-auto w-full max-w-3xl" data-chart="telemetry-ingest">
        <title id={titleId}>{caption}</title>
        <desc id={descId}>{description}</desc>
        <defs>
          <pattern id={hatchId} width={4} height={4} patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
            <rect width={4} height={4} className="fill-critical-surface" />
            <line x1={0} y1={0} x2={0} y2={4} className="stroke-critical" strokeWidth={2} />
          </pattern>
        </defs>
        {ticks.map((tick) => (
          <g key={tick}>
            <line x1={MARGIN.left} x2={WIDTH - MARGIN.right} y1={y(tick)} y2={y(tick)} className="stroke-border" strokeWidth={1} />
            <text x={MARGIN.left - 8} y={y(tick) + 4} textAnchor="end" className="fill-muted text-[11px]">
              {formatNumber(tick, locale)}
            </text>
          </g>
        ))}
        {rows.map((r, i) => {
          const x = MARGIN.left + i * slot + slot / 2
          return (
            <g key={r.day}>
              <rect x={x - bar - 1} y={y(r.accepted)} width={bar} height={y(0) - y(r.accepted)} className="fill-primary" />
              <rect x={x + 1} y={y(r.dropped)} width={bar} height={y(0) - y(r.dropped)} fill={`url(#${hatchId})`} />
              {i % every === 0 || i === rows.length - 1 ? (
                <text x={x} y={HEIGHT - MARGIN.bottom + 16} textAnchor="middle" className="fill-muted text-[11px]">
                  {dayLabel(r.day, locale)}
                </text>
              ) : null}
            </g>
          )
        })}
        <g transform={`translate(${MARGIN.left}, ${HEIGHT - 10})`} className="text-[12px]">
          <rect x={0} y={-10} width={12} height={12} className="fill-primary" />
          <text x={18} y={0} className="fill-text">
            Accepted
          </text>
          <rect x={100} y={-10} width={12} height={12} fill={`url(#${hatchId})`} />
          <text x={118} y={0} className="fill-text">
            Dropped
          </text>
        </g>
      </svg>
      <figcaption className="text-sm text-muted">{description}</figcaption>
      <details className="text-sm">
        <summary className="cursor-pointer text-primary-strong underline underline-offset-2">The figures as a table</summary>
        <DataTable
          className="mt-3"
          caption={`${caption} per day`}
          columns={[
            { key: 'day', header: 'Day (UTC)', rowHeader: true, cell: (r: Day) => dayLabel(r.day, locale) },
            { key: 'accepted', header: 'Accepted', align: 'end', cell: (r: Day) => formatNumber(r.accepted, locale) },
            { key: 'dropped', header: 'Dropped', align: 'end', cell: (r: Day) => formatNumber(r.dropped, locale) },
          ]}
          rows={[...rows].reverse()}
          rowKey={(r) => r.day}
        />
      </details>
    </figure>
  )
}
