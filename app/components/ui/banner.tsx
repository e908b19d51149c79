import { type ReactNode } from 'react'
import { cx } from '~/components/ui/class-names'

export type BannerTone = 'info' | 'success' | 'warning' | 'critical'

const tones: Record<BannerTone, string> = {
  info: 'border-info bg-info-surface',
  success: 'border-success bg-success-surface',
  warning: 'border-warning bg-warning-surface',
  critical: 'border-critical bg-critical-surface',
}

const titleTones: Record<BannerTone, string> = {
  info: 'text-info',
  success: 'text-success',
  warning: 'text-warning',
  critical: 'text-critical-strong',
}

export type BannerProps = {
  tone?: BannerTone
  title?: ReactNode
  children?: ReactNode
  /** Shown as "Correlation id: …" so the user can quote it to support (DESIGN.md: every error shows it). */
  correlationId?: string | null
  /** A follow-up action, e.g. a "Try again" link. */
  action?: ReactNode
  className?: string
}

/**
 * A message about the page or a failed request. Critical banners are alerts (announced at once);
 * the other tones are polite status messages.
 */
export function Banner({ tone = 'info', title, children, correlationId, action, className }: BannerProps) {
  return (
    <div
      role={tone === 'critical' ? 'alert' : 'status'}
      className={cx('rounded-md border-l-4 px-4 py-3 text-sm text-text', tones[tone], className)}
    >
      {title ? <p className={cx('font-semibold', titleTones[tone])}>{title}</p> : null}
      {children ? <div className={cx(title ? 'mt-1' : undefined)}>{children}</div> : null}
      {correlationId ? (
        <p className="mt-2 text-xs text-muted">
          Correlation id: <code className="font-mono break-all select-all">{correlationId}</code>
        </p>
      ) : null}
      {action ? <div className="mt-3">{action}</div> : null}
    </div>
  )
}
