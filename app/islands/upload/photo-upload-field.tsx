import { Suspense, useId, useRef, useState } from 'react'
import { CheckboxField } from '~/components/ui/checkbox-field'
import { FieldHelp } from '~/components/ui/field-parts'
import { lazyPart } from '~/components/ui/lazy-part'
import { useHydrated } from '~/components/ui/use-hydrated'
import { fileInputClasses, PHOTO_HELP, PHOTO_UPLOAD_NOTE, SHRINK_HELP, SHRINK_LABEL } from './upload-field-text'
import { useWhenIdleOrFocused } from './when-wanted'

// Fetched once the page is idle after hydration, or as soon as the user turns to the form, so it
// never competes with the page's own scripts. Until it arrives the plain file input stays, and works
// as it does without JavaScript.
const UploadIsland = lazyPart(() => import('./upload-island').then((m) => m.UploadIsland))

/**
 * The photo field of the respond and close forms. Without JavaScript: a plain file input whose
 * photos the action stores in the same request. With it: the upload island, which sends each photo
 * as a resumable upload while the user writes, and adds the finished ones as `photoIds`.
 */
export function PhotoUploadField({ itemId }: { itemId: string }) {
  const hydrated = useHydrated()
  const rootRef = useRef<HTMLDivElement>(null)
  const wanted = useWhenIdleOrFocused(hydrated, rootRef)
  // Photos already chosen in the plain field are kept: swapping it for the island would drop them.
  const [chosen, setChosen] = useState(false)
  const plain = <PlainPhotoInput onChoose={() => setChosen(true)} />
  if (!wanted || chosen) return <div ref={rootRef}>{plain}</div>
  return (
    <Suspense fallback={plain}>
      <UploadIsland itemId={itemId} />
    </Suspense>
  )
}

/**
 * The field before the island, and without JavaScript. With script it is laid out as the island is
 * (the same group, help and setting, the setting inert until the island brings it to life), so
 * nothing below it moves when the island takes its place: it arrives when the page is idle or the
 * person turns to the form, often while they are about to tap the next field (the close request's
 * checkbox under it was tapped as it moved and missed). Without script, where the island never
 * comes, what only script does is not shown (`noscript:`, the scripting media feature).
 */
function PlainPhotoInput({ onChoose }: { onChoose?: () => void }) {
  const id = useId()
  return (
    <div className="flex flex-col gap-3">
      <fieldset className="flex flex-col gap-1.5">
        <legend id={`${id}-legend`} className="font-medium text-text">
          Photos (optional)
        </legend>
        <FieldHelp id={`${id}-help`}>
          {PHOTO_HELP}
          <span className="noscript:hidden"> {PHOTO_UPLOAD_NOTE}</span>
        </FieldHelp>
        <input
          id={id}
          type="file"
          name="photos"
          accept="image/*"
          multiple
          aria-labelledby={`${id}-legend`}
          aria-describedby={`${id}-help`}
          className={fileInputClasses}
          onChange={(event) => {
            if (event.currentTarget.files?.length) onChoose?.()
          }}
        />
        <CheckboxField className="mt-1 noscript:hidden" label={SHRINK_LABEL} help={SHRINK_HELP} inputProps={{ id: `${id}-shrink`, disabled: true }} />
      </fieldset>
    </div>
  )
}
