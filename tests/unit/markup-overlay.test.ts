import { expect, test } from 'vitest'
import type { Shape } from '~/islands/markup/model'
import { fitOverlay, MAX_SHAPES, OVERLAY_VERSION, parseOverlay, serializeOverlay } from '~/islands/markup/overlay'

const style = { colour: '#2563eb', strokeWidth: 6 }
const shapes: Shape[] = [
  { id: 'r', type: 'rect', x: 10.123, y: 20, width: 100, height: 50, ...style },
  { id: 'a', type: 'arrow', from: { x: 0, y: 0 }, to: { x: 40, y: 30 }, ...style },
  { id: 'e', type: 'ellipse', x: 5, y: 5, width: 20, height: 10, ...style },
  { id: 'f', type: 'freehand', points: [{ x: 1, y: 1 }, { x: 2, y: 3 }], ...style },
  { id: 't', type: 'text', at: { x: 50, y: 60 }, text: 'Crack here', fontSize: 30, ...style },
]

test('an overlay round-trips: versioned, sized, rounded to a tenth of a pixel', () => {
  const text = serializeOverlay(shapes, 800, 600)
  const parsed = parseOverlay(text)
  expect(parsed.ok).toBe(true)
  if (!parsed.ok) return
  expect(parsed.overlay.version).toBe(OVERLAY_VERSION)
  expect(parsed.overlay).toMatchObject({ width: 800, height: 600 })
  expect(parsed.overlay.shapes.map((s) => s.type)).toEqual(['rect', 'arrow', 'ellipse', 'freehand', 'text'])
  expect(parsed.overlay.shapes[0]).toMatchObject({ x: 10.1 })
  // The backend stores the parsed JSON: the object form reads the same.
  expect(parseOverlay(JSON.parse(text))).toEqual(parsed)
})

test('anything unexpected is refused with a reason', () => {
  expect(parseOverlay('{not json')).toEqual({ ok: false, reason: 'The overlay is not valid JSON.' })
  expect(parseOverlay({ version: 2, width: 1, height: 1, shapes: [] })).toEqual({ ok: false, reason: 'Overlay version 2 is not supported.' })
  expect(parseOverlay({ version: 1, width: 10, height: 10, shapes: [{ id: 'x', type: 'star', ...style }] }).ok).toBe(false)
  expect(parseOverlay({ version: 1, width: 10, height: 10, shapes: [{ id: 'x', type: 'rect', x: 0, y: 0, width: 1, height: 1, colour: 'red', strokeWidth: 2 }] }).ok).toBe(false)
  expect(parseOverlay({ version: 1, width: 10, height: 10, shapes: [{ id: 'x', type: 'rect', x: Number.NaN, y: 0, width: 1, height: 1, ...style }] }).ok).toBe(false)
  expect(parseOverlay({ version: 1, width: 0, height: 10, shapes: [] }).ok).toBe(false)
  expect(parseOverlay(null).ok).toBe(false)
  const twice = JSON.parse(serializeOverlay([shapes[0]!, shapes[0]!], 10, 10)) as unknown
  expect(parseOverlay(twice)).toEqual({ ok: false, reason: 'The overlay repeats a shape id.' })
  const many = Array.from({ length: MAX_SHAPES + 1 }, (_, i): Shape => ({ ...shapes[0]!, id: `r${i}` }))
  expect(parseOverlay(serializeOverlay(many, 10, 10)).ok).toBe(false)
})

test('an overlay drawn on another size is fitted to the image', () => {
  const parsed = parseOverlay(serializeOverlay(shapes, 1000, 500))
  if (!parsed.ok) throw new Error(parsed.reason)
  expect(fitOverlay(parsed.overlay, 1000, 500)).toBe(parsed.overlay.shapes)
  const fitted = fitOverlay(parsed.overlay, 500, 250)
  expect(fitted[1]).toMatchObject({ from: { x: 0, y: 0 }, to: { x: 20, y: 15 }, strokeWidth: 3 })
  expect(fitted[0]).toMatchObject({ x: 5.05, y: 10, width: 50, height: 25 })
  expect(fitted[4]).toMatchObject({ at: { x: 25, y: 30 }, fontSize: 15 })
})
