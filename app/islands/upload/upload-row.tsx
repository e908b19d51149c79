import { Button } from '~/components/ui/button'
import { percent } from './upload-chunks'
import { fileSize } from './upload-downscale'
import type { QueueEntry } from './upload-queue'

/** One file of the upload island's queue: its name, where it stands, its progress and what can be done with it. */

function statusText(entry: QueueEntry): string {
  switch (entry.status) {
    case 'queued':
      return 'Waiting to upload'
    case 'shrinking':
      return 'Shrinking'
    case 'uploading':
      return `Uploading, ${percent(entry.sent, entry.size)}%`
    case 'waiting':
      return `Connection lost at ${percent(entry.sent, entry.size)}%: retrying`
    case 'paused':
      return `Paused at ${percent(entry.sent, entry.size)}%`
    case 'done':
      return 'Uploaded'
    case 'failed':
      return 'Not uploaded'
  }
}

export function UploadRow({
  entry,
  onPause,
  onResume,
  onRemove,
  removeLabel = 'Remove',
}: {
  entry: QueueEntry
  onPause: () => void
  onResume: () => void
  onRemove: () => void
  /** "Remove" from a list of photos; "Cancel" for the one file of a form. */
  removeLabel?: string
}) {
  const label = `${entry.fileName}: ${statusText(entry)}`
  const live = entry.status === 'queued' || entry.status === 'uploading' || entry.status === 'waiting'
  return (
    <li className="rounded-md border border-border bg-surface p-3 text-sm">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <span className="font-medium break-all text-text">
          {entry.fileName}
          {entry.originalSize !== null ? <span className="ml-2 font-normal text-muted">{`${fileSize(entry.originalSize)} → ${fileSize(entry.size)}`}</span> : null}
        </span>
        <span role="status" className={entry.status === 'failed' ? 'text-critical' : 'text-muted'}>
          {statusText(entry)}
        </span>
      </div>
      <progress className="mt-2 h-2 w-full accent-primary" max={entry.size} value={entry.sent} aria-label={label} />
      {entry.error ? <p className="mt-1 text-critical">{entry.error}</p> : null}
      <div className="mt-2 flex flex-wrap gap-2">
        {live ? (
          <Button size="sm" variant="secondary" onClick={onPause} aria-label={`Pause ${entry.fileName}`}>
            Pause
          </Button>
        ) : null}
        {entry.status === 'paused' ? (
          <Button size="sm" variant="secondary" onClick={onResume} aria-label={`Resume ${entry.fileName}`}>
            Resume
          </Button>
        ) : null}
        {entry.status === 'failed' ? (
          <Button size="sm" variant="secondary" onClick={onResume} aria-label={`Retry ${entry.fileName}`}>
            Retry
          </Button>
        ) : null}
        <Button size="sm" variant="plain" onClick={onRemove} aria-label={`${removeLabel} ${entry.fileName}`}>
          {removeLabel}
        </Button>
      </div>
    </li>
  )
}
