import { Suspense, useId, useRef, useState } from 'react'
import { lazyPart } from '~/components/ui/lazy-part'
import { useHydrated } from '~/components/ui/use-hydrated'
import { PhotoFieldGroup } from './photo-field-group'
import { fileInputClasses } from './upload-field-text'
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
 * The field before the island, and without JavaScript: the plain file input in the island's group
 * (PhotoFieldGroup), its shrink setting inert until the island brings it to life.
 */
function PlainPhotoInput({ onChoose }: { onChoose?: () => void }) {
  const id = useId()
  return (
    <PhotoFieldGroup
      id={id}
      controls={
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
      }
      shrinkInput={{ disabled: true }}
    />
  )
}
