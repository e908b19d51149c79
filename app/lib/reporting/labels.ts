import type { ItemPriority, ItemStatus } from './types'

/** How states read on screen. */
export const STATUS_LABELS: Record<ItemStatus, string> = {
  open: 'Open',
  close_requested: 'Close requested',
  closed: 'Closed',
}

export const PRIORITY_LABELS: Record<ItemPriority, string> = {
  low: 'Low',
  medium: 'Medium',
  high: 'High',
  critical: 'Critical',
}

export const STATUS_TONES: Record<ItemStatus, 'info' | 'warning' | 'success'> = {
  open: 'info',
  close_requested: 'warning',
  closed: 'success',
}
