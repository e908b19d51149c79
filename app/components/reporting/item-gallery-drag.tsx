import { type DragEvent, type PointerEvent as ReactPointerEvent, useRef, useState } from 'react'
import { useFetcher } from 'react-router'
import { useCsrfToken } from '~/components/ui/csrf-input'
import { useHydrated } from '~/components/ui/use-hydrated'

type Drag = { id: string; start: string[]; order: string[] }

function moved(ids: readonly string[], id: string, to: number): string[] {
  const rest = ids.filter((other) => other !== id)
  rest.splice(to, 0, id)
  return rest
}

function photoUnder(x: number, y: number): string | undefined {
  return document.elementFromPoint(x, y)?.closest<HTMLElement>('[data-photo-id]')?.dataset.photoId
}

/**
 * Drag-to-reorder for the gallery, only once JavaScript runs: native drag and drop (mouse) and a
 * small pointer-based sort (touch, pen) from a handle per photo. The Move up / Move down forms stay
 * the keyboard and no-script way. On drop the whole order goes to the action (intent photo-move with
 * the ordered `order` ids), which applies it with one call, as the move forms do; until the page's
 * photos come back the gallery shows the dropped order. The gallery owns this hook: it knows only
 * that photos have ids, so it imports nothing from the gallery.
 */
export function usePhotoSort<P extends { id: string }>(photos: readonly P[], canEdit: boolean) {
  const hydrated = useHydrated()
  const fetcher = useFetcher()
  const csrf = useCsrfToken()
  const [base, setBase] = useState(photos)
  const [order, setOrder] = useState<string[] | null>(null)
  const [dragging, setDragging] = useState<string | null>(null)
  const [message, setMessage] = useState('')
  const drag = useRef<Drag | null>(null)
  if (base !== photos) {
    setBase(photos)
    setOrder(null)
  }
  const active = canEdit && hydrated && photos.length > 1
  const ids = order ?? photos.map((p) => p.id)
  const shown = order ? order.flatMap((id) => photos.filter((p) => p.id === id)) : photos

  function begin(id: string) {
    drag.current = { id, start: ids, order: ids }
    setDragging(id)
  }

  function over(targetId: string | undefined) {
    const current = drag.current
    if (!current || !targetId || targetId === current.id) return
    const to = current.order.indexOf(targetId)
    if (to < 0) return
    current.order = moved(current.order, current.id, to)
    setOrder(current.order)
  }

  function finish(commit: boolean) {
    const current = drag.current
    drag.current = null
    setDragging(null)
    if (!current) return
    const from = current.start.indexOf(current.id)
    if (!commit) {
      setOrder(current.start)
      setMessage(`Reordering cancelled. Photo ${from + 1} stays at position ${from + 1}.`)
      return
    }
    const final = current.order
    const to = final.indexOf(current.id)
    if (to === from || final.join() === photos.map((p) => p.id).join()) {
      setOrder(null)
      setMessage(`Photo ${from + 1} stays at position ${from + 1}.`)
      return
    }
    setMessage(`Photo ${from + 1} moved to position ${to + 1} of ${final.length}.`)
    const formData = new FormData()
    formData.set('intent', 'photo-move')
    formData.set('csrf', csrf ?? '')
    formData.set('photoId', current.id)
    for (const id of final) formData.append('order', id)
    void fetcher.submit(formData, { method: 'post', preventScrollReset: true })
  }

  /** Touch and pen: the item moves in the list as the finger goes, so the window listens, not the handle. */
  function followPointer(pointerId: number) {
    const move = (event: PointerEvent) => {
      if (event.pointerId === pointerId) over(photoUnder(event.clientX, event.clientY))
    }
    const end = (event: PointerEvent) => {
      if (event.pointerId !== pointerId) return
      window.removeEventListener('pointermove', move)
      window.removeEventListener('pointerup', end)
      window.removeEventListener('pointercancel', end)
      finish(event.type === 'pointerup')
    }
    window.addEventListener('pointermove', move)
    window.addEventListener('pointerup', end)
    window.addEventListener('pointercancel', end)
  }

  const listProps = active
    ? {
        onDragOver: (event: DragEvent<HTMLElement>) => {
          if (!drag.current) return
          event.preventDefault()
          event.dataTransfer.dropEffect = 'move'
          over((event.target as Element).closest<HTMLElement>('[data-photo-id]')?.dataset.photoId)
        },
        onDrop: (event: DragEvent<HTMLElement>) => {
          if (!drag.current) return
          event.preventDefault()
          finish(true)
        },
      }
    : {}

  function itemProps(id: string) {
    return { 'data-photo-id': id, 'data-dragging': dragging === id ? 'true' : undefined }
  }

  function handle(id: string, index: number) {
    if (!active) return null
    return (
      <span
        draggable
        title={`Drag photo ${index + 1} to reorder`}
        aria-hidden="true"
        className="inline-flex cursor-grab touch-none items-center gap-1 self-start rounded-md border border-border px-2 py-1 text-xs text-muted select-none active:cursor-grabbing"
        onDragStart={(event) => {
          if (drag.current) {
            event.preventDefault()
            return
          }
          event.dataTransfer.effectAllowed = 'move'
          event.dataTransfer.setData('text/plain', id)
          const item = event.currentTarget.closest('li')
          if (item) event.dataTransfer.setDragImage(item, 16, 16)
          begin(id)
        }}
        onDragEnd={() => {
          if (drag.current?.id === id) finish(false)
        }}
        onPointerDown={(event: ReactPointerEvent<HTMLElement>) => {
          if (event.pointerType === 'mouse' || drag.current) return
          event.preventDefault()
          begin(id)
          followPointer(event.pointerId)
        }}
      >
        <span className="text-base leading-none">⠿</span> Drag to reorder
      </span>
    )
  }

  const status = active ? (
    <p role="status" aria-live="polite" className="sr-only">
      {message}
    </p>
  ) : null

  return { photos: shown, listProps, itemProps, handle, status }
}
