import { z } from 'zod'
import { MAX_TEXT_LENGTH, type Point, type Shape } from './model'

/**
 * The overlay as stored with an edit (`overlayJson`): a versioned list of shapes in the pixel
 * coordinates of the image they were drawn on, with that image's size, so the markup can be
 * loaded again and fitted to the photo at any screen size.
 */
export const OVERLAY_VERSION = 1
/** The backend takes at most 1 MB of overlay (docs/photos.md); shapes beyond this are refused first. */
export const MAX_SHAPES = 500
const MAX_POINTS = 5000
const MAX_COORD = 100_000

export type Overlay = { version: typeof OVERLAY_VERSION; width: number; height: number; shapes: Shape[] }

const coord = z.number().finite().min(-MAX_COORD).max(MAX_COORD)
const size = z.number().finite().min(0).max(MAX_COORD)
const PointSchema = z.object({ x: coord, y: coord })
const style = {
  id: z.string().min(1).max(64),
  colour: z.string().regex(/^#[0-9a-f]{6}$/i),
  strokeWidth: z.number().finite().positive().max(500),
}

const ShapeSchema = z.discriminatedUnion('type', [
  z.object({ ...style, type: z.literal('arrow'), from: PointSchema, to: PointSchema }),
  z.object({ ...style, type: z.literal('rect'), x: coord, y: coord, width: size, height: size }),
  z.object({ ...style, type: z.literal('ellipse'), x: coord, y: coord, width: size, height: size }),
  z.object({ ...style, type: z.literal('freehand'), points: z.array(PointSchema).min(1).max(MAX_POINTS) }),
  z.object({ ...style, type: z.literal('text'), at: PointSchema, text: z.string().min(1).max(MAX_TEXT_LENGTH), fontSize: z.number().finite().positive().max(2000) }),
])

const OverlaySchema = z.object({
  version: z.literal(OVERLAY_VERSION),
  width: z.number().int().positive().max(MAX_COORD),
  height: z.number().int().positive().max(MAX_COORD),
  shapes: z.array(ShapeSchema).max(MAX_SHAPES),
})

export type OverlayParse = { ok: true; overlay: Overlay } | { ok: false; reason: string }

/** Reads a stored overlay (the parsed JSON, or its text). Anything unknown is refused, not guessed. */
export function parseOverlay(input: unknown): OverlayParse {
  let value = input
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input) as unknown
    } catch {
      return { ok: false, reason: 'The overlay is not valid JSON.' }
    }
  }
  const parsed = OverlaySchema.safeParse(value)
  if (!parsed.success) {
    const version = typeof value === 'object' && value !== null && 'version' in value ? (value as { version: unknown }).version : undefined
    if (version !== undefined && version !== OVERLAY_VERSION) return { ok: false, reason: `Overlay version ${String(version)} is not supported.` }
    return { ok: false, reason: 'The overlay does not have the expected shape list.' }
  }
  // The stored ids must stay unique: they key the list and the undo stack.
  const ids = new Set(parsed.data.shapes.map((s) => s.id))
  if (ids.size !== parsed.data.shapes.length) return { ok: false, reason: 'The overlay repeats a shape id.' }
  return { ok: true, overlay: parsed.data }
}

const round = (n: number) => Math.round(n * 10) / 10
const roundPoint = (p: Point): Point => ({ x: round(p.x), y: round(p.y) })

function roundShape(shape: Shape): Shape {
  switch (shape.type) {
    case 'arrow':
      return { ...shape, from: roundPoint(shape.from), to: roundPoint(shape.to) }
    case 'rect':
    case 'ellipse':
      return { ...shape, x: round(shape.x), y: round(shape.y), width: round(shape.width), height: round(shape.height) }
    case 'freehand':
      return { ...shape, points: shape.points.map(roundPoint) }
    case 'text':
      return { ...shape, at: roundPoint(shape.at) }
  }
}

/** The overlay of shapes drawn on an image of this size, as the JSON text the edit call takes. */
export function serializeOverlay(shapes: readonly Shape[], width: number, height: number): string {
  const overlay: Overlay = { version: OVERLAY_VERSION, width: Math.round(width), height: Math.round(height), shapes: shapes.map(roundShape) }
  return JSON.stringify(overlay)
}

/** The overlay's shapes fitted to an image of another size (a new display rendition, say). */
export function fitOverlay(overlay: Overlay, width: number, height: number): Shape[] {
  if (overlay.width === width && overlay.height === height) return overlay.shapes
  const sx = width / overlay.width
  const sy = height / overlay.height
  const s = Math.min(sx, sy)
  const point = (p: Point): Point => ({ x: p.x * sx, y: p.y * sy })
  return overlay.shapes.map((shape): Shape => {
    const strokeWidth = shape.strokeWidth * s
    switch (shape.type) {
      case 'arrow':
        return { ...shape, strokeWidth, from: point(shape.from), to: point(shape.to) }
      case 'rect':
      case 'ellipse':
        return { ...shape, strokeWidth, x: shape.x * sx, y: shape.y * sy, width: shape.width * sx, height: shape.height * sy }
      case 'freehand':
        return { ...shape, strokeWidth, points: shape.points.map(point) }
      case 'text':
        return { ...shape, strokeWidth, at: point(shape.at), fontSize: shape.fontSize * s }
    }
  })
}
