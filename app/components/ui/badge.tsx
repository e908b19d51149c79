import { type ReactNode } from 'react'
import { cx } from '~/components/ui/class-names'

export type BadgeTone = 'neutral' | 'info' | 'success' | 'warning' | 'critical'

// app.css `badge` and `badge-<tone>`: two classes per badge instead of fourteen. Each name is
// spelled out, not made as `badge-${tone}`: Tailwind generates only the classes it finds whole in the source.
const tones: Record<BadgeTone, string> = {
  neutral: 'badge-neutral',
  info: 'badge-info',
  success: 'badge-success',
  warning: 'badge-warning',
  critical: 'badge-critical',
}

/** A short state label (Active, Draft, Overdue). The text carries the meaning, never the colour alone. */
export function Badge({ tone = 'neutral', children, className }: { tone?: BadgeTone; children: ReactNode; className?: string }) {
  return (
    <span className={cx('badge', tones[tone], className)}>
      {children}
    </span>
  )
}
