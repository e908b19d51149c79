import { Badge, type BadgeTone } from '~/components/ui/badge'
import { ISSUE_PURPOSES, type PackageStatus, type RecipientStatus, type SetStatus, type TransmittalStatus } from '~/lib/doc-control/types'
import { PURPOSE_LABELS } from '~/lib/schemas/sets'

/**
 * The words people read for the values of docs/doc-control.md (the API sends the values; the
 * screens of sets, transmittals and the wizard show these). The badge text always carries the
 * meaning, never the colour alone.
 */

export const PURPOSE_OPTIONS = ISSUE_PURPOSES.map((purpose) => ({ value: purpose, label: PURPOSE_LABELS[purpose] }))

export function purposeLabel(purpose: string): string {
  return (PURPOSE_LABELS as Record<string, string>)[purpose] ?? purpose
}

const TRANSMITTAL_STATUS: Record<TransmittalStatus, { label: string; tone: BadgeTone }> = {
  draft: { label: 'Draft', tone: 'neutral' },
  sent: { label: 'Sent', tone: 'info' },
  acknowledged: { label: 'Acknowledged', tone: 'success' },
  responded: { label: 'Responded', tone: 'success' },
  closed: { label: 'Closed', tone: 'neutral' },
}

export const TRANSMITTAL_STATUS_OPTIONS = (Object.keys(TRANSMITTAL_STATUS) as TransmittalStatus[]).map((status) => ({ value: status, label: TRANSMITTAL_STATUS[status].label }))

export function TransmittalStatusBadge({ status }: { status: TransmittalStatus }) {
  const shown = TRANSMITTAL_STATUS[status] ?? { label: status, tone: 'neutral' }
  return <Badge tone={shown.tone}>{shown.label}</Badge>
}

const RECIPIENT_STATUS: Record<RecipientStatus, { label: string; tone: BadgeTone }> = {
  pending: { label: 'Not sent yet', tone: 'neutral' },
  // Beyond Aconex: the sender sees at a glance who has not even opened it.
  sent: { label: 'Not opened yet', tone: 'warning' },
  opened: { label: 'Opened', tone: 'info' },
  acknowledged: { label: 'Acknowledged', tone: 'success' },
  responded: { label: 'Responded', tone: 'success' },
}

export function RecipientStatusBadge({ status }: { status: RecipientStatus }) {
  const shown = RECIPIENT_STATUS[status] ?? { label: status, tone: 'neutral' }
  return <Badge tone={shown.tone}>{shown.label}</Badge>
}

export function SetStatusBadge({ status }: { status: SetStatus }) {
  return status === 'published' ? <Badge tone="success">Published</Badge> : <Badge tone="neutral">Draft</Badge>
}

const PACKAGE_STATUS: Record<PackageStatus, string> = { queued: 'Waiting to start', running: 'Preparing', ready: 'Ready', failed: 'Failed' }

export function packageStatusLabel(status: PackageStatus): string {
  return PACKAGE_STATUS[status] ?? status
}
