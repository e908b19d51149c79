import type { Shape } from './model'

/**
 * Undo and redo as an immutable stack of shape lists: every change makes a new present and pushes
 * the old one; a change after undoing drops the redo branch.
 */
export type History = { past: Shape[][]; present: Shape[]; future: Shape[][] }

/** Enough for any markup session without letting a long freehand session grow without end. */
export const HISTORY_LIMIT = 200

export function initialHistory(shapes: Shape[] = []): History {
  return { past: [], present: shapes, future: [] }
}

export function commit(history: History, next: Shape[]): History {
  if (next === history.present) return history
  return { past: [...history.past, history.present].slice(-HISTORY_LIMIT), present: next, future: [] }
}

export function addShape(history: History, shape: Shape): History {
  return commit(history, [...history.present, shape])
}

export function removeShape(history: History, id: string): History {
  if (!history.present.some((s) => s.id === id)) return history
  return commit(
    history,
    history.present.filter((s) => s.id !== id),
  )
}

export function clearShapes(history: History): History {
  return history.present.length === 0 ? history : commit(history, [])
}

export function canUndo(history: History): boolean {
  return history.past.length > 0
}

export function canRedo(history: History): boolean {
  return history.future.length > 0
}

export function undo(history: History): History {
  const previous = history.past[history.past.length - 1]
  if (!previous) return history
  return { past: history.past.slice(0, -1), present: previous, future: [history.present, ...history.future] }
}

export function redo(history: History): History {
  const [next, ...rest] = history.future
  if (!next) return history
  return { past: [...history.past, history.present], present: next, future: rest }
}

/** The keyboard shortcut of a keydown: Ctrl/Cmd+Z undoes, Shift+Ctrl/Cmd+Z and Ctrl+Y redo. */
export function historyShortcut(event: { key: string; ctrlKey: boolean; metaKey: boolean; shiftKey: boolean; altKey: boolean }): 'undo' | 'redo' | null {
  if (!(event.ctrlKey || event.metaKey) || event.altKey) return null
  const key = event.key.toLowerCase()
  if (key === 'z') return event.shiftKey ? 'redo' : 'undo'
  if (key === 'y' && event.ctrlKey && !event.shiftKey) return 'redo'
  return null
}
