import { useEffect, useId, useRef, useState, useSyncExternalStore } from 'react'
import { buttonClasses } from '~/components/ui/button'
import { cx } from '~/components/ui/class-names'
import { createBrowserApi } from '~/lib/api/browser'
import { createUploadApi } from './upload-api'
import { PhotoFieldGroup } from './photo-field-group'
import { photoTarget } from './upload-target'
import { readDownscaleSetting, writeDownscaleSetting } from './upload-downscale'
import { shrinkPhoto } from './upload-downscale-browser'
import { browserEnvironment, UploadQueue } from './upload-queue'
import { UploadRow } from './upload-row'

/**
 * The upload island of PhotoUploadField, in its own chunk: loaded once the page has hydrated, so
 * the item page's first paint and hydration do not wait for it (docs/performance.md "First paint").
 */
export function UploadIsland({ itemId }: { itemId: string }) {
  const id = useId()
  const rootRef = useRef<HTMLDivElement>(null)
  const [queue] = useState(() => new UploadQueue(createUploadApi(createBrowserApi({ onSignedOut: () => {} })), photoTarget(itemId), browserEnvironment()))
  const entries = useSyncExternalStore(queue.subscribe, queue.getSnapshot, queue.getSnapshot)
  const [blocked, setBlocked] = useState(false)
  // Per device, as it depends on the connection. Read after hydration: the server has no localStorage.
  const [shrink, setShrink] = useState(false)
  useEffect(() => setShrink(readDownscaleSetting(storage())), [])
  const pending = entries.filter((e) => e.status !== 'done' && e.status !== 'failed').length

  // A photo still on its way would be lost with the page, and left out of the form.
  useEffect(() => {
    const form = rootRef.current?.closest('form')
    if (!form) return
    const onSubmit = (event: SubmitEvent) => {
      if (queue.pending() === 0) return
      event.preventDefault()
      setBlocked(true)
    }
    const onUnload = (event: BeforeUnloadEvent) => {
      if (queue.pending() > 0) event.preventDefault()
    }
    form.addEventListener('submit', onSubmit)
    window.addEventListener('beforeunload', onUnload)
    return () => {
      form.removeEventListener('submit', onSubmit)
      window.removeEventListener('beforeunload', onUnload)
    }
  }, [queue])

  useEffect(() => {
    if (pending === 0) setBlocked(false)
  }, [pending])

  function choose(files: FileList | null) {
    if (files && files.length > 0) queue.add(Array.from(files), shrink ? shrinkPhoto : undefined)
  }

  function toggleShrink(on: boolean) {
    setShrink(on)
    writeDownscaleSetting(storage(), on)
  }

  return (
    <div ref={rootRef} className="flex flex-col gap-3">
      <PhotoFieldGroup
        id={id}
        controls={
          <div className="flex flex-wrap gap-2">
            <PhotoPicker label="Take photo" camera describedBy={`${id}-help`} onChoose={choose} />
            <PhotoPicker label="Choose photos" describedBy={`${id}-help`} onChoose={choose} />
          </div>
        }
        shrinkInput={{ checked: shrink, onChange: (event) => toggleShrink(event.currentTarget.checked) }}
      />
      {entries.length > 0 ? (
        <ul aria-label="Photo uploads" className="flex flex-col gap-2">
          {entries.map((entry) => (
            <UploadRow key={entry.key} entry={entry} onPause={() => queue.pause(entry.key)} onResume={() => queue.resume(entry.key)} onRemove={() => queue.remove(entry.key)} />
          ))}
        </ul>
      ) : null}
      {blocked && pending > 0 ? (
        <p role="alert" className="text-sm font-medium text-critical">
          {pending === 1 ? 'A photo is still uploading.' : `${pending} photos are still uploading.`} Wait until they are done, or remove them, then send again.
        </p>
      ) : null}
      {entries.flatMap((e) => (e.status === 'done' && e.resultId ? [<input key={e.key} type="hidden" name="photoIds" value={e.resultId} />] : []))}
    </div>
  )
}

/** localStorage, or undefined where reading it throws (site data blocked). */
function storage(): Storage | undefined {
  try {
    return window.localStorage
  } catch {
    return undefined
  }
}

/** A button-styled file input: the camera (on phones) or the photo library. It clears itself, so the same photo can be chosen again. */
function PhotoPicker(props: { label: string; camera?: boolean; describedBy: string; onChoose: (files: FileList | null) => void }) {
  return (
    <label className={cx(buttonClasses({ variant: 'secondary' }), 'focus-within:outline-3 focus-within:outline-primary')}>
      {props.label}
      <input
        type="file"
        accept="image/*"
        {...(props.camera && { capture: 'environment' as const })}
        multiple
        className="sr-only"
        aria-describedby={props.describedBy}
        onChange={(event) => {
          props.onChoose(event.currentTarget.files)
          event.currentTarget.value = ''
        }}
      />
    </label>
  )
}
