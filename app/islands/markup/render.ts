import type { Point, Shape } from './model'

/**
 * Drawing as data: each shape becomes a list of canvas commands, which `paint` replays on a 2D
 * context. The same commands draw the live canvas and the flattened image, and tests read them
 * without a canvas.
 */
export type DrawCommand =
  | { op: 'style'; colour: string; lineWidth: number }
  | { op: 'begin' }
  | { op: 'moveTo'; x: number; y: number }
  | { op: 'lineTo'; x: number; y: number }
  | { op: 'rect'; x: number; y: number; width: number; height: number }
  | { op: 'ellipse'; cx: number; cy: number; rx: number; ry: number }
  | { op: 'stroke' }
  | { op: 'fill' }
  | { op: 'text'; text: string; x: number; y: number; fontSize: number }

/** The head of an arrow: two barbs at 30° from the shaft, sized to the stroke. */
export function arrowHead(from: Point, to: Point, lineWidth: number): [Point, Point] {
  const angle = Math.atan2(to.y - from.y, to.x - from.x)
  const length = Math.min(Math.max(lineWidth * 4, 10), Math.hypot(to.x - from.x, to.y - from.y) * 0.6 || lineWidth * 4)
  const barb = (offset: number): Point => ({ x: to.x - length * Math.cos(angle + offset), y: to.y - length * Math.sin(angle + offset) })
  return [barb(Math.PI / 6), barb(-Math.PI / 6)]
}

export function shapeCommands(shape: Shape): DrawCommand[] {
  const style: DrawCommand = { op: 'style', colour: shape.colour, lineWidth: shape.strokeWidth }
  switch (shape.type) {
    case 'arrow': {
      const [left, right] = arrowHead(shape.from, shape.to, shape.strokeWidth)
      return [
        style,
        { op: 'begin' },
        { op: 'moveTo', ...shape.from },
        { op: 'lineTo', ...shape.to },
        { op: 'moveTo', ...left },
        { op: 'lineTo', ...shape.to },
        { op: 'lineTo', ...right },
        { op: 'stroke' },
      ]
    }
    case 'rect':
      return [style, { op: 'begin' }, { op: 'rect', x: shape.x, y: shape.y, width: shape.width, height: shape.height }, { op: 'stroke' }]
    case 'ellipse':
      return [
        style,
        { op: 'begin' },
        { op: 'ellipse', cx: shape.x + shape.width / 2, cy: shape.y + shape.height / 2, rx: shape.width / 2, ry: shape.height / 2 },
        { op: 'stroke' },
      ]
    case 'freehand': {
      const [first, ...rest] = shape.points
      if (!first) return []
      // A single point is a dot: a zero-length line with round caps.
      const tail = rest.length > 0 ? rest : [first]
      return [style, { op: 'begin' }, { op: 'moveTo', ...first }, ...tail.map((p): DrawCommand => ({ op: 'lineTo', ...p })), { op: 'stroke' }]
    }
    case 'text':
      return [style, { op: 'text', text: shape.text, x: shape.at.x, y: shape.at.y, fontSize: shape.fontSize }]
  }
}

export function sceneCommands(shapes: readonly Shape[]): DrawCommand[] {
  return shapes.flatMap(shapeCommands)
}

/** The part of CanvasRenderingContext2D that painting uses (so tests can record the calls). */
export type PaintTarget = Pick<
  CanvasRenderingContext2D,
  'strokeStyle' | 'fillStyle' | 'lineWidth' | 'lineCap' | 'lineJoin' | 'font' | 'textBaseline' | 'beginPath' | 'moveTo' | 'lineTo' | 'rect' | 'ellipse' | 'stroke' | 'fill' | 'fillText' | 'strokeText'
>

export function paint(ctx: PaintTarget, commands: readonly DrawCommand[]): void {
  let lineWidth = 1
  for (const c of commands) {
    switch (c.op) {
      case 'style':
        ctx.strokeStyle = c.colour
        ctx.fillStyle = c.colour
        ctx.lineWidth = c.lineWidth
        ctx.lineCap = 'round'
        ctx.lineJoin = 'round'
        lineWidth = c.lineWidth
        break
      case 'begin':
        ctx.beginPath()
        break
      case 'moveTo':
        ctx.moveTo(c.x, c.y)
        break
      case 'lineTo':
        ctx.lineTo(c.x, c.y)
        break
      case 'rect':
        ctx.rect(c.x, c.y, c.width, c.height)
        break
      case 'ellipse':
        ctx.ellipse(c.cx, c.cy, Math.max(c.rx, 0), Math.max(c.ry, 0), 0, 0, Math.PI * 2)
        break
      case 'stroke':
        ctx.stroke()
        break
      case 'fill':
        ctx.fill()
        break
      case 'text': {
        ctx.font = `600 ${c.fontSize}px system-ui, sans-serif`
        ctx.textBaseline = 'alphabetic'
        // A dark or light halo keeps the words readable on any part of the photo.
        const fill = ctx.fillStyle
        ctx.lineWidth = Math.max(2, c.fontSize / 8)
        ctx.strokeStyle = isLight(String(fill)) ? '#111827' : '#ffffff'
        ctx.strokeText(c.text, c.x, c.y)
        ctx.fillText(c.text, c.x, c.y)
        ctx.strokeStyle = fill
        ctx.lineWidth = lineWidth
        break
      }
    }
  }
}

/** Whether a #rrggbb colour is light (relative luminance over one half). */
export function isLight(hex: string): boolean {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex)
  if (!m) return false
  const [r, g, b] = [m[1], m[2], m[3]].map((h) => parseInt(h ?? '0', 16) / 255) as [number, number, number]
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.5
}
