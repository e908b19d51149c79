import { data, Link } from 'react-router'
import { loadError } from '~/components/reporting/item-action'
import { Banner } from '~/components/ui/banner'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { useLiveRevalidation } from '~/islands/realtime/use-live-revalidation'
import { seatStandingWords } from '~/lib/licensing/seats'
import { createServerApi } from '~/lib/api.server'
import { formatDateTime, formatNumber } from '~/lib/format'
import type { AuditEntry } from '~/lib/admin/audit'
import { useLocale, useShellSession } from '~/root'
import type { Route } from './+types/control-panel'

/**
 * The admin control panel (spec §2; docs/admin/shell-and-retention.md "Control panel"): the figures
 * that matter, each a link to its page, and the one-row audit sample fetched on entry, whose
 * failure is ignored (spec §2).
 */

/** What the page shows of the audit sample (docs/admin/audit.md). */
type AuditSample = { action: string; at: string; actor: string | null }

export async function loader({ request, context }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  const [overview, audit] = await Promise.all([api.GET('/api/admin/overview'), api.GET('/api/admin/audit', { query: { limit: 1 } })])
  if (!overview.ok) throw loadError(overview.error, responseHeaders)
  return data({ overview: overview.data, latestAudit: audit.ok ? auditSampleOf(audit.data.items[0]) : null }, { headers: responseHeaders })
}

function auditSampleOf(entry: AuditEntry | undefined): AuditSample | null {
  if (!entry) return null
  return { action: entry.action, at: entry.createdAtUtc, actor: entry.actor?.displayName ?? entry.actor?.email ?? null }
}

const LIVE_ENTITIES = new Set(['User', 'Membership', 'Invite', 'JoinRequest', 'UploadSession', 'ReportItem', 'Report'])

/** Bytes in the largest unit that keeps a number of at least 1 (binary units, as the quota is set). */
function formatBytes(bytes: number, locale: string): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB']
  let value = bytes
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit += 1
  }
  const shown = new Intl.NumberFormat(locale, { maximumFractionDigits: unit === 0 ? 0 : 1 }).format(value)
  return `${shown} ${units[unit]}`
}

type Figure = { label: string; value: string; detail: string; to: string; attention?: boolean }

export default function ControlPanel({ loaderData }: Route.ComponentProps) {
  const { overview, latestAudit } = loaderData
  const session = useShellSession()
  const locale = useLocale()
  useLiveRevalidation((change) => LIVE_ENTITIES.has(change.entityType))
  const n = (value: number) => formatNumber(value, locale)
  const retention = overview.retention
  const seatWords = seatStandingWords(overview.seats, locale)
  const usedShare = overview.storageQuotaBytes > 0 ? Math.round((overview.storageUsedBytes / overview.storageQuotaBytes) * 100) : 0
  const figures: Figure[] = [
    { label: 'Active users', value: n(overview.activeUsers), detail: 'People who can sign in to this organisation.', to: '/admin/users' },
    {
      label: 'Seats',
      value: `${n(overview.seats.used)} of ${n(overview.seats.total)}`,
      detail: `${seatWords.detail} ${seatWords.limit}`,
      to: '/admin/users',
    },
    { label: 'Pending invites', value: n(overview.pendingInvites), detail: 'Sent, not accepted, not expired.', to: '/admin/invites' },
    {
      label: 'Join requests',
      value: n(overview.pendingJoinRequests),
      detail: 'Waiting for an administrator.',
      to: '/admin/join-requests',
      attention: overview.pendingJoinRequests > 0,
    },
    { label: 'Failing mail', value: n(overview.failingMail), detail: 'Messages that could not be delivered.', to: '/admin/mail-outbox?status=dead', attention: overview.failingMail > 0 },
    {
      label: 'Storage used',
      value: formatBytes(overview.storageUsedBytes, locale),
      detail: `${n(usedShare)}% of ${formatBytes(overview.storageQuotaBytes, locale)}.`,
      to: '/admin/uploads',
      attention: usedShare >= 90,
    },
    {
      label: 'Retention due',
      value: retention.enabled ? n(retention.dueCount) : 'Off',
      detail: !retention.enabled
        ? 'No retention policy is switched on.'
        : retention.nextDueAtUtc
          ? `Next due ${formatDateTime(retention.nextDueAtUtc, locale)}. ${n(retention.archivedCount)} archived, ${n(retention.purgedCount)} purged.`
          : `Nothing else waiting. ${n(retention.archivedCount)} archived, ${n(retention.purgedCount)} purged.`,
      to: '/admin/retention',
    },
  ]
  return (
    <>
      <PageHeader title="Admin control panel" description={session ? `Administration of ${session.tenantName}.` : undefined} />
      <div className="flex flex-col gap-10">
        {overview.demoAccounts.length > 0 ? (
          <Banner tone="critical" title="Demo accounts with published passwords can sign in here">
            The demo accounts {overview.demoAccounts.join(', ')} exist on this portal, and their passwords are printed in its instructions. Anyone can
            sign in with them. Remove them in{' '}
            <Link to="/admin/users" className="underline underline-offset-2">
              Users
            </Link>
            .
          </Banner>
        ) : null}
        <Section title="At a glance">
          <ul className="grid grid-cols-1 gap-4 sm:grid-cols-2 xl:grid-cols-3">
            {figures.map((figure) => (
              <li key={figure.label}>
                <Link
                  to={figure.to}
                  className="flex h-full flex-col gap-1 rounded-lg border border-border bg-surface p-4 shadow-sm hover:border-primary focus-visible:border-primary"
                >
                  <span className="text-sm font-medium text-muted">{figure.label}</span>
                  <span className={`text-2xl font-semibold ${figure.attention ? 'text-critical-strong' : 'text-text'}`}>{figure.value}</span>
                  <span className="text-sm text-muted">{figure.detail}</span>
                </Link>
              </li>
            ))}
          </ul>
        </Section>
        {latestAudit ? (
          <Section title="Latest audit entry">
            <p className="text-sm text-text">
              <span className="font-medium">{latestAudit.action}</span>
              {latestAudit.actor ? ` by ${latestAudit.actor}` : null}
              {latestAudit.at ? `, ${formatDateTime(latestAudit.at, locale)}` : null}.{' '}
              <Link to="/admin/audit" className="text-primary-strong underline underline-offset-2">
                Open the audit log
              </Link>
            </p>
          </Section>
        ) : null}
      </div>
    </>
  )
}

export function meta() {
  return [{ title: 'Admin control panel · Site Portal' }]
}
