import { useEffect, useRef, useState, useSyncExternalStore } from 'react'
import { createBrowserApi } from '~/lib/api/browser'
import { createUploadApi, type UploadOutcome } from './upload-api'
import type { UploadTarget } from './upload-target'
import { browserEnvironment, UploadQueue } from './upload-queue'
import { UploadRow } from './upload-row'

export type FileUploadIslandProps = { target: UploadTarget; file: File; onOutcome: (outcome: UploadOutcome) => void }

/**
 * The upload island for one file of a form (a document's revision): the same queue, protocol and
 * progress row as the photos of an item, sent to the form's target. A dropped connection waits and
 * resumes; what the server refuses ends the upload with a message naming the file; Cancel aborts
 * the session. Leaving the page while it runs asks first.
 */
export function FileUploadIsland({ target, file, onOutcome }: FileUploadIslandProps) {
  const [queue] = useState(() => new UploadQueue(createUploadApi(createBrowserApi({ onSignedOut: () => {} })), target, browserEnvironment()))
  const entries = useSyncExternalStore(queue.subscribe, queue.getSnapshot, queue.getSnapshot)
  const entry = entries[0]
  const started = useRef(false)
  const reported = useRef(false)
  const latest = useRef(onOutcome)
  latest.current = onOutcome

  useEffect(() => {
    if (started.current) return
    started.current = true
    queue.add([file])
  }, [queue, file])

  useEffect(() => {
    if (!entry || reported.current) return
    if (entry.status === 'done' && entry.resultId) {
      reported.current = true
      latest.current({ ok: true, id: entry.resultId })
    } else if (entry.status === 'failed') {
      reported.current = true
      latest.current({ ok: false, message: entry.error ?? `${entry.fileName} could not be stored.`, cancelled: false })
    }
  }, [entry])

  useEffect(() => {
    const onUnload = (event: BeforeUnloadEvent) => {
      if (queue.pending() > 0) event.preventDefault()
    }
    window.addEventListener('beforeunload', onUnload)
    return () => window.removeEventListener('beforeunload', onUnload)
  }, [queue])

  if (!entry) return null
  return (
    <ul aria-label="File upload" className="flex flex-col gap-2">
      <UploadRow
        entry={entry}
        removeLabel="Cancel"
        onPause={() => queue.pause(entry.key)}
        onResume={() => queue.resume(entry.key)}
        onRemove={() => {
          reported.current = true
          queue.remove(entry.key)
          latest.current({ ok: false, message: `You cancelled the upload of ${entry.fileName}.`, cancelled: true })
        }}
      />
    </ul>
  )
}
