import { expect, test } from 'vitest'
import type { Shape } from '~/islands/markup/model'
import { arrowHead, isLight, paint, sceneCommands, shapeCommands, type PaintTarget } from '~/islands/markup/render'

const style = { colour: '#e11d48', strokeWidth: 4 }

test('a rectangle is one stroked rect in its colour and width', () => {
  expect(shapeCommands({ id: 'r', type: 'rect', x: 1, y: 2, width: 3, height: 4, ...style })).toEqual([
    { op: 'style', colour: '#e11d48', lineWidth: 4 },
    { op: 'begin' },
    { op: 'rect', x: 1, y: 2, width: 3, height: 4 },
    { op: 'stroke' },
  ])
})

test('an ellipse is drawn from its bounding box', () => {
  const commands = shapeCommands({ id: 'e', type: 'ellipse', x: 0, y: 0, width: 10, height: 6, ...style })
  expect(commands).toContainEqual({ op: 'ellipse', cx: 5, cy: 3, rx: 5, ry: 3 })
})

test('an arrow is its shaft and two barbs meeting at the tip', () => {
  const from = { x: 0, y: 0 }
  const to = { x: 100, y: 0 }
  const [left, right] = arrowHead(from, to, 4)
  expect(left.x).toBeLessThan(100)
  expect(left.y).toBeCloseTo(-right.y)
  const commands = shapeCommands({ id: 'a', type: 'arrow', from, to, ...style })
  expect(commands.filter((c) => c.op === 'lineTo')).toEqual([
    { op: 'lineTo', x: 100, y: 0 },
    { op: 'lineTo', x: 100, y: 0 },
    { op: 'lineTo', ...right },
  ])
})

test('freehand follows its points; one point is a dot', () => {
  const dot = shapeCommands({ id: 'f', type: 'freehand', points: [{ x: 3, y: 3 }], ...style })
  expect(dot).toContainEqual({ op: 'lineTo', x: 3, y: 3 })
  const line = shapeCommands({ id: 'f', type: 'freehand', points: [{ x: 0, y: 0 }, { x: 1, y: 1 }, { x: 2, y: 0 }], ...style })
  expect(line.filter((c) => c.op === 'lineTo')).toHaveLength(2)
})

test('a scene is its shapes in order, and paint replays it on a context', () => {
  const shapes: Shape[] = [
    { id: 'r', type: 'rect', x: 0, y: 0, width: 5, height: 5, ...style },
    { id: 't', type: 'text', at: { x: 1, y: 9 }, text: 'Leak', fontSize: 20, colour: '#ffffff', strokeWidth: 4 },
  ]
  const calls: string[] = []
  const record = (name: string) => (...args: unknown[]) => {
    calls.push(`${name}(${args.join(',')})`)
  }
  const ctx = {
    beginPath: record('beginPath'),
    moveTo: record('moveTo'),
    lineTo: record('lineTo'),
    rect: record('rect'),
    ellipse: record('ellipse'),
    stroke: record('stroke'),
    fill: record('fill'),
    fillText: record('fillText'),
    strokeText: record('strokeText'),
    strokeStyle: '',
    fillStyle: '',
    lineWidth: 1,
    lineCap: 'butt',
    lineJoin: 'miter',
    font: '',
    textBaseline: 'alphabetic',
  } as unknown as PaintTarget
  paint(ctx, sceneCommands(shapes))
  expect(calls).toEqual(['beginPath()', 'rect(0,0,5,5)', 'stroke()', 'strokeText(Leak,1,9)', 'fillText(Leak,1,9)'])
  expect(ctx.fillStyle).toBe('#ffffff')
  expect(ctx.font).toContain('20px')
})

test('light colours get a dark halo', () => {
  expect(isLight('#ffffff')).toBe(true)
  expect(isLight('#facc15')).toBe(true)
  expect(isLight('#111827')).toBe(false)
  expect(isLight('red')).toBe(false)
})
