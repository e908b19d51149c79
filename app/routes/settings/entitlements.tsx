import { data, useActionData } from 'react-router'
import { Badge } from '~/components/ui/badge'
import { Banner } from '~/components/ui/banner'
import { ConfirmDialog } from '~/components/ui/confirm-dialog'
import { DataTable } from '~/components/ui/data-table'
import { EmptyState } from '~/components/ui/empty-state'
import { Section } from '~/components/ui/section'
import { createServerApi } from '~/lib/api.server'
import { formatDateTime, formatNumber } from '~/lib/format'
import { FEATURE_KEYS, PLANS, type FeatureKey } from '~/lib/licensing/plans'
import { type Entitlements, type Seat, seatStandingWords } from '~/lib/licensing/seats'
import type { Invite } from '~/lib/admin/invites'
import { useLocale } from '~/root'
import type { Route } from './+types/entitlements'
import { loadEntitlements, revokeSeat, type EntitlementsActionData } from './entitlements.server'

/**
 * /settings/entitlements (spec §2 "entitlements debug view"; issue 16, docs/licensing.md): for
 * administrators, what the organisation may use — plan, status, seats with their holders (each
 * revocable after a confirmation), pending invites, features and limits, and the raw answer of
 * GET /api/entitlements/me. Anyone else reads that the page is for administrators.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  return data(await loadEntitlements(api, responseHeaders), { headers: responseHeaders })
}

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  if (formData.get('intent') !== 'revoke') throw data('Unknown intent', { status: 400 })
  return revokeSeat(api, formData, responseHeaders)
}

const FEATURE_NAMES: Record<FeatureKey, string> = { 'identity-provider-sign-in': 'Sign-in through your identity provider' }
const STATUS_NAMES: Record<Entitlements['status'], string> = { active: 'Active', trialing: 'Trial', past_due: 'Payment overdue', cancelled: 'Cancelled', expired: 'Expired' }

export default function EntitlementsPage({ loaderData }: Route.ComponentProps) {
  const actionData = useActionData<typeof action>() as EntitlementsActionData | undefined
  const locale = useLocale()
  if (!loaderData.isAdmin) {
    return (
      <div className="flex flex-col gap-2">
        <h2 className="text-xl font-semibold">Entitlements</h2>
        <p className="text-sm text-muted">Only administrators can see this page.</p>
      </div>
    )
  }
  const { entitlements: me, seats, invites } = loaderData
  const seatWords = seatStandingWords({ ...me.seats, plan: me.plan, planName: me.planName, lapsed: me.lapsed }, locale)
  return (
    <div className="flex flex-col gap-8">
      <h2 className="text-xl font-semibold">Entitlements</h2>
      {actionData?.notice ? (
        <Banner tone="critical" title="That did not work" correlationId={actionData.notice.correlationId}>
          {actionData.notice.message}
        </Banner>
      ) : null}
      {me.lapsed ? (
        <Banner tone="warning" title="The licence has lapsed">
          Your {PLANS[me.licensedPlan].name} licence is {STATUS_NAMES[me.status].toLowerCase()} or past its end date, so the Free plan applies until it is renewed in Settings › Billing.
        </Banner>
      ) : null}
      <Section title="Plan" description="What the organisation may use now.">
        <dl className="grid max-w-xl grid-cols-[auto_1fr] gap-x-6 gap-y-2 text-sm">
          <dt className="text-muted">Plan</dt>
          <dd>{me.planName}</dd>
          <dt className="text-muted">Status</dt>
          <dd>
            <Badge tone={me.lapsed ? 'warning' : 'success'}>{STATUS_NAMES[me.status]}</Badge>
          </dd>
          <dt className="text-muted">Valid until</dt>
          <dd>{me.validUntilUtc ? formatDateTime(me.validUntilUtc, locale) : 'No end date'}</dd>
          <dt className="text-muted">Seats</dt>
          <dd data-testid="seat-counts">{seatWords.detail}</dd>
          <dt className="text-muted">Seat limit</dt>
          <dd>{seatWords.limit}</dd>
        </dl>
        {me.seats.nearLimit ? (
          <Banner tone="warning" title={me.seats.free === 0 ? 'No free seat' : 'One seat left'}>
            Cancel an invite, revoke a seat, or buy more seats in Settings › Billing.
          </Banner>
        ) : null}
      </Section>
      <Section title="Seats" description="Every active member holds a seat. Revoking one ends that person’s access here; their records stay.">
        <DataTable<Seat>
          caption="Seats"
          captionHidden
          rows={seats.items}
          rowKey={(seat) => seat.id}
          emptyState={<EmptyState heading="No seats are held" />}
          columns={[
            { key: 'name', header: 'Member', rowHeader: true, cell: (seat) => seat.displayName },
            { key: 'email', header: 'E-mail', hideOnMobile: true, cell: (seat) => seat.email },
            { key: 'role', header: 'Role', cell: (seat) => seat.roleName },
            { key: 'since', header: 'Since', hideOnMobile: true, cell: (seat) => formatDateTime(seat.sinceUtc, locale) },
            {
              key: 'revoke',
              header: <span className="sr-only">Actions</span>,
              align: 'end',
              cell: (seat) => (
                <ConfirmDialog
                  triggerLabel={`Revoke ${seat.displayName}’s seat…`}
                  title={`Revoke ${seat.displayName}’s seat?`}
                  confirmLabel="Yes, revoke the seat"
                  pendingLabel="Revoking…"
                  intent="revoke"
                  fields={{ seatId: seat.id, displayName: seat.displayName }}
                >
                  <p className="mt-1 text-sm">They are signed out of this organisation at once and cannot come back unless an administrator reactivates them. Nothing they made is deleted.</p>
                </ConfirmDialog>
              ),
            },
          ]}
        />
        {seats.nextCursor ? <p className="text-sm text-muted">The first {seats.items.length} seats are shown; Administration › Users lists everyone.</p> : null}
      </Section>
      <Section title="Pending invites" description="Each reserves a seat until it is accepted, cancelled or expires (Administration › Invites).">
        <DataTable<Invite>
          caption="Pending invites"
          captionHidden
          rows={invites.items}
          rowKey={(invite) => invite.id}
          emptyState={<EmptyState heading="No pending invites" />}
          columns={[
            { key: 'email', header: 'E-mail', rowHeader: true, cell: (invite) => invite.email },
            { key: 'role', header: 'Role', cell: (invite) => invite.roleName },
            { key: 'expires', header: 'Expires', hideOnMobile: true, cell: (invite) => formatDateTime(invite.expiresAtUtc, locale) },
          ]}
        />
      </Section>
      <Section title="Features and limits">
        <ul className="flex flex-col gap-2 text-sm">
          {FEATURE_KEYS.map((key) => (
            <li key={key} className="flex items-center gap-3">
              <Badge tone={me.features[key] ? 'success' : 'neutral'}>{me.features[key] ? 'On' : 'Off'}</Badge>
              {FEATURE_NAMES[key]}
            </li>
          ))}
          <li>Storage: {formatBytes(me.limits.storageBytes, locale)}</li>
          <li>Most seats on this plan: {formatNumber(me.limits.maxSeats, locale)}</li>
        </ul>
      </Section>
      <details className="rounded-md border border-border p-4 text-sm">
        <summary className="cursor-pointer font-medium">Raw answer of GET /api/entitlements/me</summary>
        <pre className="mt-3 overflow-x-auto font-mono text-xs">{JSON.stringify(me, null, 2)}</pre>
      </details>
    </div>
  )
}

function formatBytes(bytes: number, locale: string): string {
  const gib = bytes / 1024 ** 3
  return gib >= 1 ? `${formatNumber(Math.round(gib * 10) / 10, locale)} GiB` : `${formatNumber(Math.round(bytes / 1024 ** 2), locale)} MiB`
}

export function meta() {
  return [{ title: 'Entitlements · Site Portal' }]
}
