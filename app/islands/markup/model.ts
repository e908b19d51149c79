/**
 * The markup model: shapes in image pixel coordinates (so an overlay fits the photo at any screen
 * size), the tools that make them, the palette, and hit testing.
 */

export type Point = { x: number; y: number }

export type ShapeStyle = { colour: string; strokeWidth: number }

export type ArrowShape = ShapeStyle & { id: string; type: 'arrow'; from: Point; to: Point }
export type RectShape = ShapeStyle & { id: string; type: 'rect'; x: number; y: number; width: number; height: number }
export type EllipseShape = ShapeStyle & { id: string; type: 'ellipse'; x: number; y: number; width: number; height: number }
export type FreehandShape = ShapeStyle & { id: string; type: 'freehand'; points: Point[] }
export type TextShape = ShapeStyle & { id: string; type: 'text'; at: Point; text: string; fontSize: number }

export type Shape = ArrowShape | RectShape | EllipseShape | FreehandShape | TextShape
export type ShapeType = Shape['type']
export type Tool = ShapeType

export const TOOLS: ReadonlyArray<{ tool: Tool; label: string }> = [
  { tool: 'arrow', label: 'Arrow' },
  { tool: 'rect', label: 'Rectangle' },
  { tool: 'ellipse', label: 'Ellipse' },
  { tool: 'freehand', label: 'Freehand' },
  { tool: 'text', label: 'Text' },
]

/** High-contrast colours that read on site photos; names are what screen readers announce. */
export const COLOURS: ReadonlyArray<{ value: string; name: string }> = [
  { value: '#e11d48', name: 'Red' },
  { value: '#facc15', name: 'Yellow' },
  { value: '#2563eb', name: 'Blue' },
  { value: '#16a34a', name: 'Green' },
  { value: '#111827', name: 'Black' },
  { value: '#ffffff', name: 'White' },
]

/** Stroke widths for a photo 1000 px on its long side; scaled to the photo (strokeScale). */
export const STROKE_WIDTHS: ReadonlyArray<{ value: number; name: string }> = [
  { value: 3, name: 'Thin' },
  { value: 6, name: 'Medium' },
  { value: 12, name: 'Thick' },
]

export const MAX_TEXT_LENGTH = 200

/** A stroke or a font looks the same size whether the photo is 800 or 2048 px wide. */
export function strokeScale(imageWidth: number, imageHeight: number): number {
  return Math.max(imageWidth, imageHeight, 1) / 1000
}

export function shapeLabel(shape: Shape): string {
  const colour = COLOURS.find((c) => c.value === shape.colour)?.name ?? shape.colour
  const kind = TOOLS.find((t) => t.tool === shape.type)?.label ?? shape.type
  return shape.type === 'text' ? `${kind} “${shape.text}”, ${colour.toLowerCase()}` : `${kind}, ${colour.toLowerCase()}`
}

/** Starts a shape where the pointer went down; text needs its words. */
export function beginShape(tool: Tool, id: string, at: Point, style: ShapeStyle, text = ''): Shape {
  switch (tool) {
    case 'arrow':
      return { id, type: 'arrow', from: at, to: at, ...style }
    case 'rect':
    case 'ellipse':
      return { id, type: tool, x: at.x, y: at.y, width: 0, height: 0, ...style }
    case 'freehand':
      return { id, type: 'freehand', points: [at], ...style }
    case 'text':
      return { id, type: 'text', at, text: text.slice(0, MAX_TEXT_LENGTH), fontSize: Math.max(12, style.strokeWidth * 5), ...style }
  }
}

/**
 * The shape as the pointer moves on. Boxes keep their anchor (the first corner) in `anchor`, so
 * dragging up or left gives a positive size.
 */
export function extendShape(shape: Shape, anchor: Point, to: Point): Shape {
  switch (shape.type) {
    case 'arrow':
      return { ...shape, to }
    case 'rect':
    case 'ellipse':
      return {
        ...shape,
        x: Math.min(anchor.x, to.x),
        y: Math.min(anchor.y, to.y),
        width: Math.abs(to.x - anchor.x),
        height: Math.abs(to.y - anchor.y),
      }
    case 'freehand': {
      const last = shape.points[shape.points.length - 1]
      // Points closer than a pixel add weight to the overlay and nothing to the line.
      if (last && Math.hypot(last.x - to.x, last.y - to.y) < 1) return shape
      return { ...shape, points: [...shape.points, to] }
    }
    case 'text':
      return { ...shape, at: to }
  }
}

/** A click without a drag makes nothing worth keeping (text excepted). */
export function isMeaningful(shape: Shape): boolean {
  switch (shape.type) {
    case 'arrow':
      return Math.hypot(shape.to.x - shape.from.x, shape.to.y - shape.from.y) >= 2
    case 'rect':
    case 'ellipse':
      return shape.width >= 2 && shape.height >= 2
    case 'freehand':
      return shape.points.length >= 2
    case 'text':
      return shape.text.trim() !== ''
  }
}

function distanceToSegment(p: Point, a: Point, b: Point): number {
  const dx = b.x - a.x
  const dy = b.y - a.y
  const lengthSq = dx * dx + dy * dy
  const t = lengthSq === 0 ? 0 : Math.max(0, Math.min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / lengthSq))
  return Math.hypot(p.x - (a.x + t * dx), p.y - (a.y + t * dy))
}

/** Whether a point (image pixels) touches a shape's stroke, within `tolerance` beyond its width. */
export function hitsShape(shape: Shape, p: Point, tolerance: number): boolean {
  const reach = shape.strokeWidth / 2 + tolerance
  switch (shape.type) {
    case 'arrow':
      return distanceToSegment(p, shape.from, shape.to) <= reach
    case 'freehand':
      if (shape.points.length === 1 && shape.points[0]) return Math.hypot(p.x - shape.points[0].x, p.y - shape.points[0].y) <= reach
      return shape.points.some((point, i) => {
        const next = shape.points[i + 1]
        return next !== undefined && distanceToSegment(p, point, next) <= reach
      })
    case 'rect': {
      const { x, y, width: w, height: h } = shape
      const corners: Point[] = [
        { x, y },
        { x: x + w, y },
        { x: x + w, y: y + h },
        { x, y: y + h },
      ]
      return corners.some((corner, i) => distanceToSegment(p, corner, corners[(i + 1) % 4] ?? corner) <= reach)
    }
    case 'ellipse': {
      const rx = shape.width / 2
      const ry = shape.height / 2
      if (rx === 0 || ry === 0) return false
      const cx = shape.x + rx
      const cy = shape.y + ry
      // Distance from the outline, approximated through the normalised radius.
      const r = Math.hypot((p.x - cx) / rx, (p.y - cy) / ry)
      return Math.abs(r - 1) * Math.min(rx, ry) <= reach
    }
    case 'text': {
      const width = shape.text.length * shape.fontSize * 0.6
      return p.x >= shape.at.x - tolerance && p.x <= shape.at.x + width + tolerance && p.y >= shape.at.y - shape.fontSize - tolerance && p.y <= shape.at.y + tolerance
    }
  }
}

/** The topmost shape under the point, if any (the last drawn is on top). */
export function shapeAt(shapes: readonly Shape[], p: Point, tolerance: number): Shape | undefined {
  for (let i = shapes.length - 1; i >= 0; i--) {
    const shape = shapes[i]
    if (shape && hitsShape(shape, p, tolerance)) return shape
  }
  return undefined
}
