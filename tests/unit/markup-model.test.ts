import { expect, test } from 'vitest'
import { addShape, canRedo, canUndo, clearShapes, commit, historyShortcut, HISTORY_LIMIT, initialHistory, redo, removeShape, undo } from '~/islands/markup/history'
import { beginShape, extendShape, hitsShape, isMeaningful, shapeAt, shapeLabel, strokeScale, type Shape } from '~/islands/markup/model'

const style = { colour: '#e11d48', strokeWidth: 4 }
const rect = (id: string, x = 10, y = 10): Shape => ({ id, type: 'rect', x, y, width: 100, height: 50, ...style })

test('a box dragged up and left keeps a positive size from its anchor', () => {
  const anchor = { x: 100, y: 100 }
  const shape = extendShape(beginShape('rect', 'a', anchor, style), anchor, { x: 40, y: 70 })
  expect(shape).toMatchObject({ type: 'rect', x: 40, y: 70, width: 60, height: 30 })
  expect(isMeaningful(shape)).toBe(true)
  expect(isMeaningful(beginShape('ellipse', 'b', anchor, style))).toBe(false)
})

test('an arrow follows the pointer; freehand skips sub-pixel moves', () => {
  const from = { x: 0, y: 0 }
  expect(extendShape(beginShape('arrow', 'a', from, style), from, { x: 30, y: 40 })).toMatchObject({ from, to: { x: 30, y: 40 } })
  let line = beginShape('freehand', 'f', from, style)
  line = extendShape(line, from, { x: 0.3, y: 0.3 })
  line = extendShape(line, from, { x: 5, y: 5 })
  expect(line.type === 'freehand' && line.points).toEqual([from, { x: 5, y: 5 }])
})

test('text needs words, and is cut to the limit', () => {
  const at = { x: 5, y: 5 }
  expect(isMeaningful(beginShape('text', 't', at, style, '  '))).toBe(false)
  const long = beginShape('text', 't', at, style, 'x'.repeat(500))
  expect(long.type === 'text' && long.text.length).toBe(200)
  expect(shapeLabel(beginShape('text', 't', at, style, 'Crack'))).toBe('Text “Crack”, red')
  expect(shapeLabel(rect('r'))).toBe('Rectangle, red')
})

test('strokes scale with the photo’s long side', () => {
  expect(strokeScale(2000, 1500)).toBe(2)
  expect(strokeScale(0, 0)).toBe(0.001)
})

test('hit testing finds outlines, not the inside, and prefers the topmost shape', () => {
  const box = rect('r')
  expect(hitsShape(box, { x: 10, y: 30 }, 2)).toBe(true)
  expect(hitsShape(box, { x: 60, y: 35 }, 2)).toBe(false)
  const arrow: Shape = { id: 'a', type: 'arrow', from: { x: 0, y: 0 }, to: { x: 100, y: 0 }, ...style }
  expect(hitsShape(arrow, { x: 50, y: 3 }, 2)).toBe(true)
  expect(hitsShape(arrow, { x: 50, y: 10 }, 2)).toBe(false)
  const ellipse: Shape = { id: 'e', type: 'ellipse', x: 0, y: 0, width: 100, height: 50, ...style }
  expect(hitsShape(ellipse, { x: 100, y: 25 }, 1)).toBe(true)
  expect(hitsShape(ellipse, { x: 50, y: 25 }, 1)).toBe(false)
  const top = rect('top')
  expect(shapeAt([box, top], { x: 10, y: 30 }, 2)?.id).toBe('top')
  expect(shapeAt([box, top], { x: 500, y: 500 }, 2)).toBeUndefined()
})

test('undo and redo walk the history; a new change drops the redo branch', () => {
  let h = initialHistory()
  expect(canUndo(h)).toBe(false)
  h = addShape(h, rect('a'))
  h = addShape(h, rect('b'))
  expect(h.present.map((s) => s.id)).toEqual(['a', 'b'])
  h = undo(h)
  expect(h.present.map((s) => s.id)).toEqual(['a'])
  expect(canRedo(h)).toBe(true)
  h = redo(h)
  expect(h.present.map((s) => s.id)).toEqual(['a', 'b'])
  expect(redo(h)).toBe(h)
  h = undo(undo(h))
  expect(h.present).toEqual([])
  expect(undo(h)).toBe(h)
  h = addShape(h, rect('c'))
  expect(canRedo(h)).toBe(false)
  expect(h.present.map((s) => s.id)).toEqual(['c'])
})

test('removing and clearing are undoable; removing nothing changes nothing', () => {
  let h = addShape(addShape(initialHistory(), rect('a')), rect('b'))
  expect(removeShape(h, 'zzz')).toBe(h)
  h = removeShape(h, 'a')
  expect(h.present.map((s) => s.id)).toEqual(['b'])
  h = clearShapes(h)
  expect(h.present).toEqual([])
  expect(clearShapes(h)).toBe(h)
  expect(undo(undo(h)).present.map((s) => s.id)).toEqual(['a', 'b'])
})

test('the history keeps a bounded past', () => {
  let h = initialHistory()
  for (let i = 0; i < HISTORY_LIMIT + 20; i++) h = commit(h, [rect(String(i))])
  expect(h.past.length).toBe(HISTORY_LIMIT)
})

test('Ctrl/Cmd+Z undoes, with Shift (or Ctrl+Y) redoes; other keys are ignored', () => {
  const key = (k: string, mods: Partial<{ ctrlKey: boolean; metaKey: boolean; shiftKey: boolean; altKey: boolean }> = {}) => ({
    key: k,
    ctrlKey: false,
    metaKey: false,
    shiftKey: false,
    altKey: false,
    ...mods,
  })
  expect(historyShortcut(key('z', { ctrlKey: true }))).toBe('undo')
  expect(historyShortcut(key('z', { metaKey: true }))).toBe('undo')
  expect(historyShortcut(key('Z', { ctrlKey: true, shiftKey: true }))).toBe('redo')
  expect(historyShortcut(key('Z', { metaKey: true, shiftKey: true }))).toBe('redo')
  expect(historyShortcut(key('y', { ctrlKey: true }))).toBe('redo')
  expect(historyShortcut(key('z'))).toBeNull()
  expect(historyShortcut(key('z', { ctrlKey: true, altKey: true }))).toBeNull()
  expect(historyShortcut(key('c', { ctrlKey: true }))).toBeNull()
})
