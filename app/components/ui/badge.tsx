import { type ReactNode } from 'react'
import { cx } from '~/components/ui/class-names'

export type BadgeTone = 'neutral' | 'info' | 'success' | 'warning' | 'critical'

const tones: Record<BadgeTone, string> = {
  neutral: 'bg-surface-muted text-text border-border',
  info: 'bg-info-surface text-info border-info/30',
  success: 'bg-success-surface text-success border-success/30',
  warning: 'bg-warning-surface text-warning border-warning/30',
  critical: 'bg-critical-surface text-critical border-critical/30',
}

/** A short state label (Active, Draft, Overdue). The text carries the meaning, never the colour alone. */
export function Badge({ tone = 'neutral', children, className }: { tone?: BadgeTone; children: ReactNode; className?: string }) {
  return (
    <span className={cx('inline-flex items-center self-center rounded-full border px-2 py-0.5 text-xs font-medium whitespace-nowrap', tones[tone], className)}>
      {children}
    </span>
  )
}
