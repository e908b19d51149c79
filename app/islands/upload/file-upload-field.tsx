import { type ComponentType, type ReactNode, useEffect, useRef, useState } from 'react'
import { ErrorList } from '~/components/ui/error-list'
import { FieldHelp, FieldLabel, useFieldA11y } from '~/components/ui/field-parts'
import { useHydrated } from '~/components/ui/use-hydrated'
import type { UploadOutcome } from './upload-api'
import type { UploadTarget } from './upload-target'
import { fileInputClasses } from './upload-field-text'
import type { FileUploadIslandProps } from './file-upload-island'
import { useWhenIdleOrFocused } from './when-wanted'

/** A file the form has a place for now (the document exists, the revision was checked): the island sends it there. */
export type PendingUpload = { key: string; target: UploadTarget; file: File }

// The island (the resumable queue and its progress row) is fetched once the page is idle after
// hydration, or as soon as the user turns to the form. Until then, and without JavaScript, the
// plain file input posts the file with the form, and the action forwards it in one request.
let island: { FileUploadIsland: ComponentType<FileUploadIslandProps> } | undefined
let loading: Promise<unknown> | undefined
function loadIsland(): Promise<unknown> {
  loading ??= import('./file-upload-island').then((m) => (island = m)).catch(() => (loading = undefined))
  return loading
}

/** True once the island is here: a form may then send its file through it instead of with the post. */
export function resumableUploadReady(): boolean {
  return island !== undefined
}

export type FileUploadFieldProps = {
  label: ReactNode
  help?: ReactNode
  errors?: readonly string[] | null
  required?: boolean
  /** Set by the form when the file has somewhere to go; the island then shows its progress. */
  upload: PendingUpload | null
  onOutcome: (outcome: UploadOutcome) => void
}

/**
 * One file of a form (a document's revision): a plain `<input type=file name=file>` that works
 * without JavaScript, and with it the resumable upload island below it once the form says where the
 * file goes. The input keeps the chosen file either way, so the form can read it.
 */
export function FileUploadField({ label, help, errors, required, upload, onOutcome }: FileUploadFieldProps) {
  const hydrated = useHydrated()
  const rootRef = useRef<HTMLDivElement>(null)
  const wanted = useWhenIdleOrFocused(hydrated, rootRef)
  const [Island, setIsland] = useState(() => island?.FileUploadIsland)
  useEffect(() => {
    if (!wanted || Island) return
    let live = true
    void loadIsland().then(() => {
      if (live && island) setIsland(() => island?.FileUploadIsland)
    })
    return () => {
      live = false
    }
  }, [wanted, Island])
  const a11y = useFieldA11y({ id: undefined, errors, hasHelp: Boolean(help), describedBy: undefined, invalid: undefined })
  return (
    <div ref={rootRef} className="flex flex-col gap-3">
      <div className="flex flex-col gap-1.5">
        <FieldLabel htmlFor={a11y.id}>{label}</FieldLabel>
        {help ? <FieldHelp id={a11y.helpId}>{help}</FieldHelp> : null}
        <ErrorList id={a11y.errorId} errors={errors} />
        <input type="file" name="file" required={required} {...a11y.controlProps} className={fileInputClasses} disabled={upload !== null} />
      </div>
      {upload && Island ? <Island key={upload.key} target={upload.target} file={upload.file} onOutcome={onOutcome} /> : null}
    </div>
  )
}
