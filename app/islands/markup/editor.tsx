import { useCallback, useEffect, useRef, useState, type PointerEvent as ReactPointerEvent } from 'react'
import { useNavigate } from 'react-router'
import { Banner } from '~/components/ui/banner'
import { Button } from '~/components/ui/button'
import { ButtonLink } from '~/components/ui/button-link'
import { useHydrated } from '~/components/ui/use-hydrated'
import { createBrowserApi } from '~/lib/api/browser'
import { addShape, canRedo, canUndo, clearShapes, historyShortcut, initialHistory, redo, removeShape, undo, type History } from './history'
import { beginShape, COLOURS, extendShape, isMeaningful, shapeLabel, STROKE_WIDTHS, strokeScale, type Point, type Shape, type Tool } from './model'
import { fitOverlay, MAX_SHAPES, parseOverlay, serializeOverlay } from './overlay'
import { newShapeId } from './photo'
import { paint, sceneCommands } from './render'
import { MarkupToolbar } from './toolbar'

export type MarkupEditorProps = {
  photoId: string
  itemId: string
  imageUrl: string
  imageAlt: string
  /** The latest edit's overlay (parsed JSON), or null. */
  overlay: unknown
  /** False for members who may look at photos but not edit them. */
  canEdit: boolean
}

type Draft = { shape: Shape; anchor: Point; pointerId: number }
type Failure = { message: string; correlationId: string | null }

const JPEG_QUALITY = 0.9

/**
 * The markup island: a canvas over the photo, drawn on in the photo's own pixels. Before
 * hydration (and without JavaScript) only the photo shows; the route says why.
 */
export function MarkupEditor({ photoId, itemId, imageUrl, imageAlt, overlay, canEdit }: MarkupEditorProps) {
  const hydrated = useHydrated()
  const navigate = useNavigate()
  const imageRef = useRef<HTMLImageElement>(null)
  const canvasRef = useRef<HTMLCanvasElement>(null)
  const draftRef = useRef<Draft | null>(null)
  const [size, setSize] = useState<{ width: number; height: number } | null>(null)
  const [history, setHistory] = useState<History>(() => initialHistory())
  const [tool, setTool] = useState<Tool>('rect')
  const [colour, setColour] = useState<string>(COLOURS[0]?.value ?? '#e11d48')
  const [strokeWidth, setStrokeWidth] = useState<number>(STROKE_WIDTHS[1]?.value ?? 6)
  const [text, setText] = useState('')
  const [notice, setNotice] = useState<string | null>(null)
  const [failure, setFailure] = useState<Failure | null>(null)
  const [saving, setSaving] = useState(false)
  const shapes = history.present

  // The image's own size fixes the drawing coordinates; the stored overlay is fitted to it.
  const onImageReady = useCallback(() => {
    const image = imageRef.current
    if (!image || !image.complete || image.naturalWidth === 0) return
    setSize((current) => current ?? { width: image.naturalWidth, height: image.naturalHeight })
  }, [])

  useEffect(() => {
    if (hydrated) onImageReady()
  }, [hydrated, onImageReady])

  // Loaded once: a later revalidation must not wipe what is being drawn.
  const overlayLoaded = useRef(false)
  useEffect(() => {
    if (!size || overlayLoaded.current) return
    overlayLoaded.current = true
    if (overlay === null || overlay === undefined) return
    const parsed = parseOverlay(overlay)
    if (parsed.ok) setHistory(initialHistory(fitOverlay(parsed.overlay, size.width, size.height)))
    else setNotice(`The earlier markup could not be loaded (${parsed.reason}) You can draw new markup; saving replaces it.`)
  }, [size, overlay])

  const redraw = useCallback(() => {
    const canvas = canvasRef.current
    const context = canvas?.getContext('2d')
    if (!canvas || !context) return
    context.clearRect(0, 0, canvas.width, canvas.height)
    const draft = draftRef.current
    paint(context, sceneCommands(draft ? [...shapes, draft.shape] : shapes))
  }, [shapes])

  useEffect(() => {
    const canvas = canvasRef.current
    if (!canvas || !size) return
    if (canvas.width !== size.width) canvas.width = size.width
    if (canvas.height !== size.height) canvas.height = size.height
    redraw()
  }, [size, redraw])

  useEffect(() => {
    if (!hydrated || !canEdit) return
    function onKeyDown(event: KeyboardEvent) {
      const target = event.target as HTMLElement | null
      // Text fields keep their own undo.
      if (target && (target.tagName === 'INPUT' && (target as HTMLInputElement).type === 'text')) return
      if (target?.tagName === 'TEXTAREA' || target?.isContentEditable) return
      const action = historyShortcut(event)
      if (!action) return
      event.preventDefault()
      setHistory((h) => (action === 'undo' ? undo(h) : redo(h)))
    }
    window.addEventListener('keydown', onKeyDown)
    return () => window.removeEventListener('keydown', onKeyDown)
  }, [hydrated, canEdit])

  function toImagePoint(event: ReactPointerEvent<HTMLCanvasElement>): Point | null {
    const canvas = canvasRef.current
    if (!canvas || !size) return null
    const box = canvas.getBoundingClientRect()
    if (box.width === 0 || box.height === 0) return null
    return { x: ((event.clientX - box.left) * size.width) / box.width, y: ((event.clientY - box.top) * size.height) / box.height }
  }

  function onPointerDown(event: ReactPointerEvent<HTMLCanvasElement>) {
    if (!size || saving || (event.pointerType === 'mouse' && event.button !== 0)) return
    const at = toImagePoint(event)
    if (!at) return
    if (shapes.length >= MAX_SHAPES) {
      setNotice(`A photo takes at most ${MAX_SHAPES} shapes.`)
      return
    }
    const style = { colour, strokeWidth: strokeWidth * strokeScale(size.width, size.height) }
    if (tool === 'text') {
      if (text.trim() === '') {
        setNotice('Type the text first, then tap the photo where it goes.')
        return
      }
      setNotice(null)
      setHistory((h) => addShape(h, beginShape('text', newShapeId(), at, style, text.trim())))
      return
    }
    event.preventDefault()
    event.currentTarget.setPointerCapture(event.pointerId)
    draftRef.current = { shape: beginShape(tool, newShapeId(), at, style), anchor: at, pointerId: event.pointerId }
    redraw()
  }

  function onPointerMove(event: ReactPointerEvent<HTMLCanvasElement>) {
    const draft = draftRef.current
    if (!draft || draft.pointerId !== event.pointerId) return
    const at = toImagePoint(event)
    if (!at) return
    draftRef.current = { ...draft, shape: extendShape(draft.shape, draft.anchor, at) }
    redraw()
  }

  function onPointerUp(event: ReactPointerEvent<HTMLCanvasElement>) {
    const draft = draftRef.current
    if (!draft || draft.pointerId !== event.pointerId) return
    const at = toImagePoint(event)
    const shape = at ? extendShape(draft.shape, draft.anchor, at) : draft.shape
    draftRef.current = null
    if (isMeaningful(shape)) setHistory((h) => addShape(h, shape))
    else redraw()
  }

  function onPointerCancel(event: ReactPointerEvent<HTMLCanvasElement>) {
    if (draftRef.current?.pointerId !== event.pointerId) return
    draftRef.current = null
    redraw()
  }

  async function save() {
    const image = imageRef.current
    if (!image || !size) return
    setSaving(true)
    setFailure(null)
    try {
      const blob = await flatten(image, shapes, size)
      const form = new FormData()
      form.set('photoId', photoId)
      form.set('file', blob, 'markup.jpg')
      form.set('overlayJson', serializeOverlay(shapes, size.width, size.height))
      const result = await createBrowserApi().POST('/api/photos/edits', { body: form })
      if (!result.ok) {
        setFailure({ message: result.error.message, correlationId: result.error.correlationId ?? result.error.problem?.correlationId ?? null })
        setSaving(false)
        return
      }
      await navigate(`/items/${itemId}`)
    } catch {
      setFailure({ message: 'The marked-up image could not be made in this browser.', correlationId: null })
      setSaving(false)
    }
  }

  const editing = hydrated && canEdit
  return (
    <div className="flex flex-col gap-4">
      {editing ? (
        <MarkupToolbar tool={tool} colour={colour} strokeWidth={strokeWidth} onTool={setTool} onColour={setColour} onStrokeWidth={setStrokeWidth} />
      ) : null}
      {editing && tool === 'text' ? (
        <div className="flex flex-col gap-1">
          <label htmlFor="markup-text" className="text-sm font-semibold text-text">
            Text to add
          </label>
          <input
            id="markup-text"
            type="text"
            maxLength={200}
            value={text}
            onChange={(e) => setText(e.target.value)}
            className="min-h-11 max-w-md rounded-md border border-border-strong bg-surface px-3 text-text"
            aria-describedby="markup-text-hint"
          />
          <p id="markup-text-hint" className="text-sm text-muted">
            Then tap the photo where the text goes.
          </p>
        </div>
      ) : null}
      {notice ? <Banner tone="warning">{notice}</Banner> : null}
      {failure ? (
        <Banner tone="critical" title="The markup was not saved" correlationId={failure.correlationId}>
          {failure.message}
        </Banner>
      ) : null}
      <div className="relative inline-block max-w-full self-start align-top">
        <img ref={imageRef} src={imageUrl} alt={imageAlt} onLoad={onImageReady} className="block h-auto max-h-[75vh] w-auto max-w-full select-none" draggable={false} />
        {editing ? (
          <canvas
            ref={canvasRef}
            role="img"
            aria-label="Markup drawing area: drag on the photo to draw with the chosen tool"
            className="absolute inset-0 h-full w-full cursor-crosshair touch-none"
            onPointerDown={onPointerDown}
            onPointerMove={onPointerMove}
            onPointerUp={onPointerUp}
            onPointerCancel={onPointerCancel}
          />
        ) : null}
      </div>
      {editing ? (
        <>
          <div className="flex flex-wrap gap-2">
            <Button variant="secondary" onClick={() => setHistory(undo)} disabled={!canUndo(history) || saving} aria-keyshortcuts="Control+Z Meta+Z">
              Undo
            </Button>
            <Button variant="secondary" onClick={() => setHistory(redo)} disabled={!canRedo(history) || saving} aria-keyshortcuts="Control+Shift+Z Meta+Shift+Z">
              Redo
            </Button>
            <Button variant="secondary" onClick={() => setHistory(clearShapes)} disabled={shapes.length === 0 || saving}>
              Clear all
            </Button>
            <Button onClick={() => void save()} disabled={saving || !size} aria-disabled={saving || undefined}>
              {saving ? 'Saving…' : 'Save markup'}
            </Button>
            <ButtonLink to={`/items/${itemId}`} variant="plain">
              Cancel
            </ButtonLink>
          </div>
          <section aria-labelledby="markup-shapes-title" className="flex flex-col gap-2">
            <h2 id="markup-shapes-title" className="text-lg font-semibold text-text">
              Shapes on this photo
            </h2>
            <p role="status" className="text-sm text-muted">
              {shapes.length === 0 ? 'No shapes yet.' : shapes.length === 1 ? '1 shape.' : `${shapes.length} shapes.`}
            </p>
            {shapes.length > 0 ? (
              <ol className="flex flex-col gap-1">
                {shapes.map((shape, index) => (
                  <li key={shape.id} className="flex items-center gap-3 text-sm text-text">
                    <span>
                      {index + 1}. {shapeLabel(shape)}
                    </span>
                    <Button variant="plain" size="sm" onClick={() => setHistory((h) => removeShape(h, shape.id))} disabled={saving} aria-label={`Remove ${index + 1}. ${shapeLabel(shape)}`}>
                      Remove
                    </Button>
                  </li>
                ))}
              </ol>
            ) : null}
          </section>
        </>
      ) : null}
    </div>
  )
}

/** The photo with its shapes, at the photo's display size, as a JPEG. */
function flatten(image: HTMLImageElement, shapes: readonly Shape[], size: { width: number; height: number }): Promise<Blob> {
  const canvas = document.createElement('canvas')
  canvas.width = size.width
  canvas.height = size.height
  const context = canvas.getContext('2d')
  if (!context) return Promise.reject(new Error('no 2d context'))
  context.drawImage(image, 0, 0, size.width, size.height)
  paint(context, sceneCommands(shapes))
  return new Promise((resolve, reject) => canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('toBlob gave nothing'))), 'image/jpeg', JPEG_QUALITY))
}
