import { Link } from 'react-router'
import { formatNumber } from '~/lib/format'
import { useLocale } from '~/root'

export type DashboardFigureProps = {
  label: string
  value: number
  /** The /items view listing exactly what the figure counts. */
  to: string
  /** Drawn in the critical colour when above zero (overdue items), besides the label saying so. */
  alarming?: boolean
}

/** One count of the dashboard, as a link to the items it counts. */
export function DashboardFigure({ label, value, to, alarming = false }: DashboardFigureProps) {
  const locale = useLocale()
  return (
    <Link
      to={to}
      className="flex h-full flex-col gap-1 rounded-lg border border-border bg-surface p-4 text-text no-underline shadow-sm hover:border-primary hover:bg-surface-muted sm:p-5"
    >
      <span className={alarming && value > 0 ? 'text-3xl font-semibold text-critical' : 'text-3xl font-semibold'}>{formatNumber(value, locale)}</span>
      <span className="text-sm font-medium text-primary-strong underline underline-offset-2">{label}</span>
    </Link>
  )
}
