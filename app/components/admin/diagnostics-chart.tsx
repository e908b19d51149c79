import { useId } from 'react'
import { DataTable } from '~/components/ui/data-table'
import { DIAGNOSTIC_CHECK_LABELS, type AnalysisBucket, type AnalysisPoint, type DiagnosticCheck } from '~/lib/admin/diagnostics'
import { formatNumber } from '~/lib/format'

const WIDTH = 640
const HEIGHT = 320
const LEFT = 52
const RIGHT = 12
/** Two panels, one above the other: attempts and failures, then latency. */
const TOP_PANEL = { top: 28, bottom: 138 }
const LOW_PANEL = { top: 186, bottom: 278 }
/** Time labels under the axis: at most this many, so they never overlap on a phone. */
const MAX_LABELS = 6

/** A round top for an axis (1, 2, 5 × 10ⁿ) at or above the largest value. */
function niceMax(value: number): number {
  if (value <= 1) return 1
  const power = 10 ** Math.floor(Math.log10(value))
  const step = [1, 2, 5, 10].find((m) => m * power >= value) ?? 10
  return step * power
}

function bucketLabel(iso: string, bucket: AnalysisBucket, locale: string): string {
  const options: Intl.DateTimeFormatOptions = bucket === 'day' ? { day: 'numeric', month: 'short', timeZone: 'UTC' } : { hour: '2-digit', minute: '2-digit', timeZone: 'UTC' }
  return new Intl.DateTimeFormat(locale, options).format(new Date(iso))
}

function fullLabel(iso: string, bucket: AnalysisBucket, locale: string): string {
  const options: Intl.DateTimeFormatOptions =
    bucket === 'day'
      ? { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }
      : { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', timeZone: 'UTC', timeZoneName: 'short' }
  return new Intl.DateTimeFormat(locale, options).format(new Date(iso))
}

/** Line segments through the points that have a value (a gap where nothing was measured). */
function segments(points: readonly AnalysisPoint[], value: (p: AnalysisPoint) => number | null, x: (i: number) => number, y: (v: number) => number): string[] {
  const lines: string[] = []
  let current: string[] = []
  points.forEach((p, i) => {
    const v = value(p)
    if (v === null) {
      if (current.length > 0) lines.push(current.join(' '))
      current = []
    } else current.push(`${x(i).toFixed(1)},${y(v).toFixed(1)}`)
  })
  if (current.length > 0) lines.push(current.join(' '))
  return lines
}

/**
 * One check over the window, drawn on the server as SVG (no chart script): above, attempts per
 * hour (or day) as light bars with the failures as dark bars over them; below, the mean latency as
 * a solid line and the p95 as a dashed one (dash, not colour alone, tells them apart). The image
 * has a title and a description of what it shows; the same figures follow as a table.
 */
export function DiagnosticsChart({ check, points, bucket, locale }: { check: DiagnosticCheck; points: readonly AnalysisPoint[]; bucket: AnalysisBucket; locale: string }) {
  const titleId = useId()
  const descId = useId()
  const label = DIAGNOSTIC_CHECK_LABELS[check]
  const per = bucket === 'day' ? 'day' : 'hour'
  if (points.length === 0) return null
  const plotWidth = WIDTH - LEFT - RIGHT
  const slot = plotWidth / points.length
  const barWidth = Math.max(1, slot * 0.7)
  const x = (i: number) => LEFT + slot * i + slot / 2
  const countTop = niceMax(Math.max(...points.map((p) => p.attempts)))
  const yCount = (v: number) => TOP_PANEL.bottom - (v / countTop) * (TOP_PANEL.bottom - TOP_PANEL.top)
  const latencies = points.flatMap((p) => [p.meanLatencyMs, p.p95LatencyMs]).filter((v): v is number => v !== null)
  const latencyTop = niceMax(Math.max(0, ...latencies))
  const yLatency = (v: number) => LOW_PANEL.bottom - (v / latencyTop) * (LOW_PANEL.bottom - LOW_PANEL.top)
  const every = Math.ceil(points.length / MAX_LABELS)
  const attempts = points.reduce((n, p) => n + p.attempts, 0)
  const failures = points.reduce((n, p) => n + p.failures, 0)
  const worst = points.reduce<AnalysisPoint | null>((w, p) => (p.failures > (w?.failures ?? 0) ? p : w), null)
  const slowest = latencies.length > 0 ? Math.max(...latencies) : null
  const first = points[0] as AnalysisPoint
  const description =
    attempts === 0
      ? `${label}: no attempts from ${fullLabel(first.bucketStartUtc, bucket, locale)} on.`
      : `${label} from ${fullLabel(first.bucketStartUtc, bucket, locale)}: ${formatNumber(attempts, locale)} attempts, ${formatNumber(failures, locale)} failed${
          worst ? `, most in the ${per} of ${fullLabel(worst.bucketStartUtc, bucket, locale)} (${formatNumber(worst.failures, locale)})` : ''
        }.${slowest !== null ? ` The slowest ${per} took ${formatNumber(slowest, locale)} ms (p95).` : ''}`
  const countTicks = [0, countTop / 2, countTop].filter((v, i, all) => Number.isInteger(v) && all.indexOf(v) === i)
  const latencyTicks = [0, latencyTop / 2, latencyTop].filter((v, i, all) => Number.isInteger(v) && all.indexOf(v) === i)
  return (
    <figure className="flex flex-col gap-3">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby={`${titleId} ${descId}`} className="h-auto w-full max-w-3xl" data-chart={`diagnostics-${check}`}>
        <title id={titleId}>{`${label}: attempts, failures and latency per ${per}`}</title>
        <desc id={descId}>{description}</desc>
        <text x={LEFT} y={TOP_PANEL.top - 12} className="fill-text text-[12px] font-semibold">
          {`Attempts and failures per ${per}`}
        </text>
        {countTicks.map((tick) => (
          <g key={`c${tick}`}>
            <line x1={LEFT} x2={WIDTH - RIGHT} y1={yCount(tick)} y2={yCount(tick)} className="stroke-border" strokeWidth={1} />
            <text x={LEFT - 8} y={yCount(tick) + 4} textAnchor="end" className="fill-muted text-[11px]">
              {formatNumber(tick, locale)}
            </text>
          </g>
        ))}
        {points.map((p, i) =>
          p.attempts > 0 ? (
            <g key={p.bucketStartUtc}>
              <rect x={x(i) - barWidth / 2} y={yCount(p.attempts)} width={barWidth} height={TOP_PANEL.bottom - yCount(p.attempts)} className="fill-border" />
              {p.failures > 0 ? (
                <rect x={x(i) - barWidth / 2} y={yCount(p.failures)} width={barWidth} height={TOP_PANEL.bottom - yCount(p.failures)} className="fill-critical" />
              ) : null}
            </g>
          ) : null,
        )}
        <text x={LEFT} y={LOW_PANEL.top - 12} className="fill-text text-[12px] font-semibold">
          Latency (ms)
        </text>
        {latencyTicks.map((tick) => (
          <g key={`l${tick}`}>
            <line x1={LEFT} x2={WIDTH - RIGHT} y1={yLatency(tick)} y2={yLatency(tick)} className="stroke-border" strokeWidth={1} />
            <text x={LEFT - 8} y={yLatency(tick) + 4} textAnchor="end" className="fill-muted text-[11px]">
              {formatNumber(tick, locale)}
            </text>
          </g>
        ))}
        {segments(points, (p) => p.p95LatencyMs, x, yLatency).map((line) => (
          <polyline key={`p${line}`} points={line} fill="none" className="stroke-muted" strokeWidth={1.5} strokeDasharray="5 3" />
        ))}
        {segments(points, (p) => p.meanLatencyMs, x, yLatency).map((line) => (
          <polyline key={`m${line}`} points={line} fill="none" className="stroke-primary" strokeWidth={2} />
        ))}
        {points.map((p, i) =>
          p.meanLatencyMs !== null ? <circle key={`d${p.bucketStartUtc}`} cx={x(i)} cy={yLatency(p.meanLatencyMs)} r={2} className="fill-primary" /> : null,
        )}
        {points.map((p, i) =>
          i % every === 0 ? (
            <text key={`t${p.bucketStartUtc}`} x={x(i)} y={LOW_PANEL.bottom + 16} textAnchor="middle" className="fill-muted text-[11px]">
              {bucketLabel(p.bucketStartUtc, bucket, locale)}
            </text>
          ) : null,
        )}
        <g transform={`translate(${LEFT}, ${HEIGHT - 8})`} className="text-[11px]">
          <rect x={0} y={-9} width={10} height={10} className="fill-border" />
          <text x={14} y={0} className="fill-text">
            Attempts
          </text>
          <rect x={82} y={-9} width={10} height={10} className="fill-critical" />
          <text x={96} y={0} className="fill-text">
            Failures
          </text>
          <line x1={162} x2={184} y1={-4} y2={-4} className="stroke-primary" strokeWidth={2} />
          <text x={188} y={0} className="fill-text">
            Mean
          </text>
          <line x1={236} x2={258} y1={-4} y2={-4} className="stroke-muted" strokeWidth={1.5} strokeDasharray="5 3" />
          <text x={262} y={0} className="fill-text">
            p95
          </text>
        </g>
      </svg>
      <figcaption className="text-sm text-muted">{description}</figcaption>
      <details className="text-sm">
        <summary className="cursor-pointer text-primary-strong underline underline-offset-2">{`${label}: the figures per ${per}`}</summary>
        <DataTable
          className="mt-3"
          caption={`${label} per ${per}`}
          captionHidden
          rows={points}
          rowKey={(p) => p.bucketStartUtc}
          columns={[
            { key: 'bucket', header: bucket === 'day' ? 'Day' : 'Hour', rowHeader: true, cell: (p: AnalysisPoint) => fullLabel(p.bucketStartUtc, bucket, locale) },
            { key: 'attempts', header: 'Attempts', align: 'end', cell: (p: AnalysisPoint) => formatNumber(p.attempts, locale) },
            { key: 'failures', header: 'Failures', align: 'end', cell: (p: AnalysisPoint) => formatNumber(p.failures, locale) },
            { key: 'mean', header: 'Mean (ms)', align: 'end', cell: (p: AnalysisPoint) => (p.meanLatencyMs === null ? '–' : formatNumber(p.meanLatencyMs, locale)) },
            { key: 'p95', header: 'p95 (ms)', align: 'end', cell: (p: AnalysisPoint) => (p.p95LatencyMs === null ? '–' : formatNumber(p.p95LatencyMs, locale)) },
          ]}
        />
      </details>
    </figure>
  )
}
