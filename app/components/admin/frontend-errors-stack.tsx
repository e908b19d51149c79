import { Link } from 'react-router'
import { Badge } from '~/components/ui/badge'
import { frameLabel, type FrontendErrorOccurrence, type StackFrame } from '~/lib/admin/frontend-errors'
import { formatDateTime } from '~/lib/format'

/**
 * A stack as the admin reads it: each frame mapped back to the source (function, file:line:column)
 * when the build's map knew it, else as the browser wrote it (another release, a script of
 * elsewhere). Monospace, wrapping on a phone instead of scrolling sideways.
 */
export function FrontendErrorStack({ frames, raw }: { frames: readonly StackFrame[]; raw: string | null }) {
  if (frames.length === 0) {
    return raw ? <pre className="font-mono text-xs break-words whitespace-pre-wrap">{raw}</pre> : <p className="text-sm text-muted">No stack was sent.</p>
  }
  return (
    <ol className="flex flex-col gap-1 rounded-md border border-border bg-surface-muted p-3 font-mono text-xs" aria-label="Stack, innermost call first">
      {frames.map((frame, i) => (
        <li key={i} className="break-all whitespace-pre-wrap">
          {frame.mapped ? (
            <>
              <span className="text-text">{frameLabel(frame)}</span>
              <span className="block pl-4 text-muted">{frame.text}</span>
            </>
          ) : (
            <span className="text-muted">
              {frame.text} <span className="font-sans">(not mapped)</span>
            </span>
          )}
        </li>
      ))}
    </ol>
  )
}

/** One occurrence: when, where, who, which build and browser, and its stack. */
export function FrontendErrorOccurrenceCard({ occurrence, locale, open }: { occurrence: FrontendErrorOccurrence; locale: string; open: boolean }) {
  const o = occurrence
  const mapped = o.frames.some((f) => f.mapped)
  return (
    <details open={open} className="rounded-lg border border-border bg-surface p-4">
      <summary className="cursor-pointer text-sm font-medium">
        {formatDateTime(o.receivedAtUtc, locale)} · <span className="font-mono break-all">{o.path ?? 'no page'}</span>
        {mapped ? null : (
          <>
            {' '}
            <Badge tone="neutral">Not mapped</Badge>
          </>
        )}
      </summary>
      <dl className="mt-3 grid grid-cols-1 gap-x-4 gap-y-1 text-sm sm:grid-cols-[auto_1fr]">
        <dt className="text-muted">Person</dt>
        <dd>{o.user ? (o.user.displayName ?? o.user.email ?? 'A former member') : 'Not named'}</dd>
        <dt className="text-muted">Visitor (correlation id)</dt>
        <dd className="font-mono text-xs break-all">
          {o.visitorId ? (
            <Link to={`/admin/logs?${new URLSearchParams({ query: o.visitorId }).toString()}`} className="text-primary-strong underline underline-offset-2" title="The server’s log lines of this visitor">
              {o.visitorId}
            </Link>
          ) : (
            '—'
          )}
        </dd>
        <dt className="text-muted">Release</dt>
        <dd className="font-mono text-xs break-all">{o.release ?? '—'}</dd>
        <dt className="text-muted">Happened</dt>
        <dd>{formatDateTime(o.occurredAtUtc, locale)} (the browser’s clock)</dd>
        <dt className="text-muted">Browser</dt>
        <dd className="text-xs break-words">{o.userAgent ?? '—'}</dd>
        <dt className="text-muted">Caught by</dt>
        <dd className="font-mono text-xs">{o.name}</dd>
      </dl>
      <div className="mt-3">
        <FrontendErrorStack frames={o.frames} raw={o.stack} />
      </div>
    </details>
  )
}
