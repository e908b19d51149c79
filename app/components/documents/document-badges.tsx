import { Badge, type BadgeTone } from '~/components/ui/badge'
import { statusLabel } from '~/lib/documents/rules'
import type { CdeState } from '~/lib/documents/types'

const STATE_TONES: Record<CdeState, BadgeTone> = { WIP: 'neutral', Shared: 'info', Published: 'success', Archived: 'warning' }

/** A document's state in the common data environment; the word carries the meaning. */
export function StateBadge({ state }: { state: CdeState }) {
  return <Badge tone={STATE_TONES[state]}>{state === 'WIP' ? 'Work in progress' : state}</Badge>
}

/** A suitability code with its meaning, e.g. "S2 Suitable for information". */
export function StatusText({ code }: { code: string }) {
  const label = statusLabel(code)
  return (
    <span>
      <span className="font-medium">{code}</span>
      {label !== code ? <span className="text-muted"> {label}</span> : null}
    </span>
  )
}

/** "Current" or "Superseded by P02": which revision is in use, in words. */
export function RevisionMark({ superseded, supersededBy }: { superseded: boolean; supersededBy: { code: string } | null }) {
  if (!superseded) return <Badge tone="success">Current</Badge>
  return (
    <span className="inline-flex flex-wrap items-center gap-1.5">
      <Badge tone="warning">Superseded</Badge>
      {supersededBy ? <span className="text-sm text-muted">by {supersededBy.code}</span> : null}
    </span>
  )
}

/** A file size people read: 12 KB, 3.4 MB. */
export function fileSizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`
  const mb = bytes / (1024 * 1024)
  return `${mb.toFixed(mb < 10 ? 1 : 0)} MB`
}
