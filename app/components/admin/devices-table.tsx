import { Badge } from '~/components/ui/badge'
import { ConfirmDialog } from '~/components/ui/confirm-dialog'
import { DataTable } from '~/components/ui/data-table'
import type { PaginationProps } from '~/components/ui/pagination'
import type { AdminDevice } from '~/lib/admin/devices'
import { formatDateTime, formatNumber } from '~/lib/format'

export function deviceLabel(device: AdminDevice): string {
  return device.name ?? device.deviceId
}

/** The organisation's devices, each with a Revoke that asks first (a disclosure form: works without JavaScript). */
export function DevicesTable({ devices, locale, emptyState, pagination }: { devices: AdminDevice[]; locale: string; emptyState: React.ReactNode; pagination: PaginationProps }) {
  return (
    <DataTable
      caption="Registered devices"
      captionHidden
      rows={devices}
      rowKey={(d) => `${d.user.id}/${d.deviceId}`}
      emptyState={emptyState}
      pagination={pagination}
      columns={[
        {
          key: 'device',
          header: 'Device',
          rowHeader: true,
          cell: (d) => (
            <span className="flex flex-col">
              <span>{deviceLabel(d)}</span>
              {d.name ? <span className="text-xs font-normal break-all text-muted">{d.deviceId}</span> : null}
            </span>
          ),
        },
        {
          key: 'person',
          header: 'Person',
          cell: (d) => (
            <span className="flex flex-col">
              <span>{d.user.displayName}</span>
              <span className="text-xs break-all text-muted">{d.user.email}</span>
            </span>
          ),
        },
        { key: 'platform', header: 'Platform', cell: (d) => d.platform },
        { key: 'registered', header: 'Registered', hideOnMobile: true, cell: (d) => formatDateTime(d.registeredAtUtc, locale) },
        { key: 'seen', header: 'Last seen', cell: (d) => formatDateTime(d.lastSeenAtUtc, locale) },
        { key: 'sessions', header: 'Sessions', align: 'end', hideOnMobile: true, cell: (d) => formatNumber(d.activeSessions, locale) },
        {
          key: 'state',
          header: 'State',
          cell: (d) =>
            d.revokedAtUtc ? (
              <span className="flex flex-col gap-1">
                <Badge tone="neutral">Revoked</Badge>
                <span className="text-xs text-muted">{formatDateTime(d.revokedAtUtc, locale)}</span>
              </span>
            ) : (
              <ConfirmDialog
                triggerLabel="Revoke…"
                title={`Revoke ${deviceLabel(d)} of ${d.user.displayName}?`}
                confirmLabel="Yes, revoke device"
                pendingLabel="Revoking…"
                intent="revoke"
                fields={{ userId: d.user.id, deviceId: d.deviceId, deviceName: deviceLabel(d) }}
              >
                Its {d.activeSessions === 1 ? 'session ends' : `${formatNumber(d.activeSessions, locale)} sessions end`} now and it stops syncing. {d.user.displayName} can sign in
                on it again and register it anew.
              </ConfirmDialog>
            ),
        },
      ]}
    />
  )
}
