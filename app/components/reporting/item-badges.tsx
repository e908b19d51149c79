import { Badge, type BadgeTone } from '~/components/ui/badge'
import { PRIORITY_LABELS, STATUS_LABELS, STATUS_TONES } from '~/lib/reporting/labels'
import type { ItemPriority, ItemStatus } from '~/lib/reporting/types'

const PRIORITY_TONES: Record<ItemPriority, BadgeTone> = { low: 'neutral', medium: 'neutral', high: 'warning', critical: 'critical' }

export function ItemStatusBadge({ status }: { status: ItemStatus }) {
  return <Badge tone={STATUS_TONES[status]}>{STATUS_LABELS[status]}</Badge>
}

/** Says "priority" in words too: "High" alone beside a status badge would be ambiguous. */
export function ItemPriorityBadge({ priority }: { priority: ItemPriority }) {
  return (
    <Badge tone={PRIORITY_TONES[priority]}>
      {PRIORITY_LABELS[priority]}
      <span className="sr-only"> priority</span>
    </Badge>
  )
}

export function OverdueBadge() {
  return <Badge tone="critical">Overdue</Badge>
}
