import { Form } from 'react-router'
import { usePhotoSort } from '~/components/reporting/item-gallery-drag'
import { ButtonLink } from '~/components/ui/button-link'
import { ConfirmDialog } from '~/components/ui/confirm-dialog'
import { CsrfInput } from '~/components/ui/csrf-input'
import { EmptyState } from '~/components/ui/empty-state'
import { SubmitButton } from '~/components/ui/submit-button'
import { TextareaField } from '~/components/ui/textarea-field'
import { RevisionInput } from '~/components/ui/revision-input'

/** The item's photos (docs/photos.md "Photos") as the item page shows them. */
export type ItemPhoto = {
  id: string
  /** Shown instead of fileName (as sent), which may hold paths or control characters. */
  displayName: string
  caption: string | null
  sortOrder: number
  width: number | null
  height: number | null
  thumbnailUrl: string | null
  displayUrl: string | null
  /** Bumped by every change of its caption or place: the caption form saves against it (expectedRevision). */
  revision: number
}

/**
 * The caption form of one photo after a failed save: its errors (a field's, or a conflict's
 * "Changed by … since you opened it"), the caption as typed, and after a conflict the revision to
 * save against next.
 */
export type CaptionReply = { photoId: string; errors: string[]; typed?: string | undefined; revision?: number | undefined }

function photoName(photo: ItemPhoto, index: number): string {
  return photo.caption ? `Photo ${index + 1}: ${photo.caption}` : `Photo ${index + 1} (${photo.displayName})`
}

/**
 * The item's gallery: thumbnails linking to the full-size view; for members who may write, a
 * caption form, up/down buttons and delete with confirmation per photo. Plain forms, so all of it
 * works without JavaScript; with it, photos can also be dragged into a new order (item-gallery-drag).
 */
export function ItemGallery({ photos, canEdit, captionReply }: { photos: readonly ItemPhoto[]; canEdit: boolean; captionReply?: CaptionReply | undefined }) {
  const sort = usePhotoSort(photos, canEdit)
  if (photos.length === 0) {
    return (
      <EmptyState heading="No photos yet" headingLevel={3}>
        Photos sent with a response or a close appear here.
      </EmptyState>
    )
  }
  return (
    <>
      <ol className="grid gap-4 sm:grid-cols-2" {...sort.listProps}>
      {sort.photos.map((photo, index) => {
        const name = photoName(photo, index)
        const reply = captionReply?.photoId === photo.id ? captionReply : undefined
        return (
          <li key={photo.id} {...sort.itemProps(photo.id)} className="flex flex-col gap-3 rounded-lg border border-border bg-surface p-3 data-[dragging=true]:opacity-60">
            {sort.handle(photo.id, index)}
            <PhotoThumbnail photo={photo} alt={name} />
            {photo.caption ? <p className="text-sm break-words text-text">{photo.caption}</p> : null}
            {canEdit ? (
              <>
                <Form method="post" className="flex flex-col gap-2">
                  <CsrfInput />
                  <input type="hidden" name="photoId" value={photo.id} />
                  <RevisionInput revision={reply?.revision ?? photo.revision} />
                  <TextareaField
                    label={`Caption of photo ${index + 1}`}
                    textareaProps={{ name: 'caption', id: `caption-${photo.id}`, defaultValue: reply?.typed ?? photo.caption ?? '', maxLength: 500, rows: 2 }}
                    errors={reply && reply.errors.length > 0 ? reply.errors : undefined}
                  />
                  <div>
                    <SubmitButton intent="photo-caption" variant="secondary" size="sm" pendingLabel="Saving…">
                      Save caption
                    </SubmitButton>
                  </div>
                </Form>
                <div className="flex flex-wrap gap-2">
                  {index > 0 ? <MoveButton photoId={photo.id} order={swapped(photos, index, index - 1)} direction="up" position={index + 1} /> : null}
                  {index < photos.length - 1 ? <MoveButton photoId={photo.id} order={swapped(photos, index, index + 1)} direction="down" position={index + 1} /> : null}
                  {/* Relative to the item page (/items/:itemId), so the gallery needs no item id. */}
                  <ButtonLink to={`photos/${photo.id}/markup`} relative="path" variant="secondary" size="sm">
                    Mark up photo {index + 1}
                  </ButtonLink>
                </div>
                <ConfirmDialog
                  triggerLabel={`Delete photo ${index + 1}…`}
                  title={`Delete ${name}?`}
                  confirmLabel="Yes, delete photo"
                  pendingLabel="Deleting…"
                  intent="photo-delete"
                  fields={{ photoId: photo.id }}
                >
                  It leaves the gallery and cannot be restored.
                </ConfirmDialog>
              </>
            ) : null}
          </li>
        )
      })}
      </ol>
      {sort.status}
    </>
  )
}

/** The ids in the order the page shows, with the photos at `a` and `b` swapped. */
function swapped(photos: readonly ItemPhoto[], a: number, b: number): string[] {
  const ids = photos.map((p) => p.id)
  const first = ids[a]
  const second = ids[b]
  if (first === undefined || second === undefined) return ids
  ids[a] = second
  ids[b] = first
  return ids
}

/** Sends the whole new order, as the page showed it (one call applies it; a stale page gets a 409 notice). */
function MoveButton({ photoId, order, direction, position }: { photoId: string; order: readonly string[]; direction: 'up' | 'down'; position: number }) {
  return (
    <Form method="post">
      <CsrfInput />
      <input type="hidden" name="photoId" value={photoId} />
      <input type="hidden" name="direction" value={direction} />
      {order.map((id) => (
        <input key={id} type="hidden" name="order" value={id} />
      ))}
      {/* Named "Move photo 2 up" from its content, so the visible "Move up" is part of the name (WCAG 2.5.3). */}
      <SubmitButton intent="photo-move" variant="secondary" size="sm" pendingLabel="Moving…">
        Move <span className="sr-only">photo {position} </span>
        {direction}
      </SubmitButton>
    </Form>
  )
}

export function PhotoThumbnail({ photo, alt, size = 'md' }: { photo: ItemPhoto; alt: string; size?: 'sm' | 'md' }) {
  const box = size === 'sm' ? 'h-20 w-20' : 'aspect-[4/3] w-full'
  const image = photo.thumbnailUrl ? (
    <img src={photo.thumbnailUrl} alt={alt} loading="lazy" className={`${box} rounded-md bg-surface-muted object-cover`} />
  ) : (
    <span className={`${box} flex items-center justify-center rounded-md bg-surface-muted p-2 text-center text-xs text-muted`}>{alt}</span>
  )
  if (!photo.displayUrl) return image
  return (
    <a href={photo.displayUrl} target="_blank" rel="noopener" className="block rounded-md" aria-label={`${alt}, full size`}>
      {image}
    </a>
  )
}

/** The photos a response in the thread carries, as small thumbnails (deleted ones are left out). */
export function ResponsePhotos({ photoIds, photos }: { photoIds: readonly string[]; photos: readonly ItemPhoto[] }) {
  const shown = photoIds.flatMap((id) => {
    const index = photos.findIndex((p) => p.id === id)
    const photo = photos[index]
    return photo ? [{ photo, index }] : []
  })
  if (shown.length === 0) return null
  return (
    <ul aria-label="Photos" className="mt-2 flex flex-wrap gap-2">
      {shown.map(({ photo, index }) => (
        <li key={photo.id}>
          <PhotoThumbnail photo={photo} alt={photoName(photo, index)} size="sm" />
        </li>
      ))}
    </ul>
  )
}
