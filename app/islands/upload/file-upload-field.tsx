import { type ReactNode, useEffect, useRef, useState } from 'react'
import { ErrorList } from '~/components/ui/error-list'
import { FieldHelp, FieldLabel, useFieldA11y } from '~/components/ui/field-parts'
import { useHydrated } from '~/components/ui/use-hydrated'
import type { UploadOutcome } from './upload-api'
import { fileInputClasses } from './upload-field-text'
import { fileUploadIsland, loadFileUploadIsland, type PendingUpload } from './file-upload-island-loader'
import { useWhenIdleOrFocused } from './when-wanted'

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
  const [Island, setIsland] = useState(fileUploadIsland)
  useEffect(() => {
    if (!wanted || Island) return
    let live = true
    void loadFileUploadIsland().then(() => {
      const loaded = fileUploadIsland()
      if (live && loaded) setIsland(() => loaded)
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
