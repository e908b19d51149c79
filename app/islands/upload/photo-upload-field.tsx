import { lazy, Suspense, useId } from 'react'
import { FieldHelp } from '~/components/ui/field-parts'
import { useHydrated } from '~/components/ui/use-hydrated'
import { fileInputClasses, PHOTO_HELP } from './upload-field-text'

// Fetched after hydration: until it arrives the plain file input stays, and works as without JavaScript.
const UploadIsland = lazy(() => import('./upload-island').then((m) => ({ default: m.UploadIsland })))

/**
 * The photo field of the respond and close forms. Without JavaScript: a plain file input whose
 * photos the action stores in the same request. With it: the upload island, which sends each photo
 * as a resumable upload while the user writes, and adds the finished ones as `photoIds`.
 */
export function PhotoUploadField({ itemId }: { itemId: string }) {
  const hydrated = useHydrated()
  const plain = <PlainPhotoInput />
  if (!hydrated) return plain
  return (
    <Suspense fallback={plain}>
      <UploadIsland itemId={itemId} />
    </Suspense>
  )
}

function PlainPhotoInput() {
  const id = useId()
  return (
    <div className="flex flex-col gap-1.5">
      <label htmlFor={id} className="font-medium text-text">
        Photos (optional)
      </label>
      <FieldHelp id={`${id}-help`}>{PHOTO_HELP}</FieldHelp>
      <input id={id} type="file" name="photos" accept="image/*" multiple aria-describedby={`${id}-help`} className={fileInputClasses} />
    </div>
  )
}
