import { useEffect, useState } from 'react'
import { Button } from '~/components/ui/button'
import { matchesLogFilter, type LogFilter, type LogLine } from '~/lib/admin/logs'
import { LOGS_ROOM } from '~/lib/realtime/events'
import { realtime, useRealtimeState } from './realtime/realtime'

export type LogsFollowProps = {
  /** The page's filters: only new lines that pass them are added. */
  filter: LogFilter
  onLines: (lines: LogLine[]) => void
}

type Phase = { kind: 'off' } | { kind: 'joining' } | { kind: 'following'; received: number } | { kind: 'refused'; reason: string | undefined }

/**
 * "Follow live" (docs/realtime.md "Logs"): while on, the tab's hub connection is in the `logs`
 * room, and each `LogLine` batch (at most one a second) adds its lines that pass the page's
 * filters. In its own chunk, loaded only with JavaScript; without it the page is refreshed by hand.
 */
export function LogsFollowIsland({ filter, onLines }: LogsFollowProps) {
  const [phase, setPhase] = useState<Phase>({ kind: 'off' })
  const connection = useRealtimeState()
  const on = phase.kind !== 'off'

  useEffect(() => {
    if (!on) return
    const offLines = realtime.onLogLines((batch) => {
      const lines = batch.lines.filter((line) => matchesLogFilter(line, filter))
      if (lines.length > 0) onLines(lines)
      setPhase((current) => (current.kind === 'following' ? { kind: 'following', received: current.received + lines.length } : current))
    })
    const leave = realtime.joinRoom(LOGS_ROOM, {
      joined: () => setPhase((current) => (current.kind === 'following' ? current : { kind: 'following', received: 0 })),
      refused: (reason) => setPhase({ kind: 'refused', reason }),
      message: () => undefined,
      presence: () => undefined,
    })
    return () => {
      offLines()
      leave()
    }
  }, [on, filter, onLines])

  const status =
    phase.kind === 'off'
      ? 'Not following. Refresh the page for newer lines, or follow them live.'
      : phase.kind === 'refused'
        ? (phase.reason ?? 'Following could not start. Refresh the page to try again.')
        : connection.status !== 'connected'
          ? 'Waiting for the live connection…'
          : phase.kind === 'joining'
            ? 'Starting…'
            : `Following: new lines appear at the top (${phase.received} so far).`

  return (
    <div className="flex flex-wrap items-center gap-3">
      <Button type="button" variant="secondary" size="sm" aria-pressed={on} onClick={() => setPhase(on ? { kind: 'off' } : { kind: 'joining' })}>
        Follow live
      </Button>
      <p role="status" className="text-sm text-muted">
        {status}
      </p>
    </div>
  )
}
