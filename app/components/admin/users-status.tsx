import { Badge, type BadgeTone } from '~/components/ui/badge'

const TONES: Record<string, BadgeTone> = { Active: 'success', Suspended: 'warning', Invited: 'info', Blocked: 'critical', Deleted: 'neutral' }

/** A member's status (Active, Suspended, Invited, Blocked, Deleted) as a badge. */
export function UserStatusBadge({ status }: { status: string }) {
  return <Badge tone={TONES[status] ?? 'neutral'}>{status}</Badge>
}
