import { Card } from '~/components/ui/card'
import { type AdminUploadStats, formatBytes } from '~/lib/admin/uploads'
import { formatNumber } from '~/lib/format'

/** The organisation's upload figures as cards: sessions per state, and bytes. */
export function UploadsStats({ stats, locale }: { stats: AdminUploadStats; locale: string }) {
  const figures: { label: string; value: string; hint?: string }[] = [
    { label: 'Open', value: formatNumber(stats.open, locale), hint: stats.stuck > 0 ? `${formatNumber(stats.stuck, locale)} stuck` : undefined },
    { label: 'Completing', value: formatNumber(stats.completing, locale) },
    { label: 'Completed', value: formatNumber(stats.completed, locale) },
    { label: 'Failed', value: formatNumber(stats.failed, locale) },
    { label: 'Aborted', value: formatNumber(stats.aborted, locale) },
    { label: 'Expired', value: formatNumber(stats.expired, locale) },
    { label: 'Bytes completed', value: formatBytes(stats.bytesCompleted, locale) },
    { label: 'Bytes in progress', value: formatBytes(stats.bytesInProgress, locale) },
  ]
  return (
    <ul aria-label="Upload figures" className="grid grid-cols-2 gap-3 sm:grid-cols-4">
      {figures.map((f) => (
        <li key={f.label}>
          <Card className="h-full p-3 sm:p-4">
            <p className="text-sm text-muted">{f.label}</p>
            <p className="text-2xl font-semibold text-text">{f.value}</p>
            {f.hint ? <p className="text-sm text-warning">{f.hint}</p> : null}
          </Card>
        </li>
      ))}
    </ul>
  )
}
