import { data, useActionData } from 'react-router'
import { DevicesFilters } from '~/components/admin/devices-filters'
import { DevicesTable } from '~/components/admin/devices-table'
import type { ReportingActionData } from '~/components/reporting/report-action'
import { Banner } from '~/components/ui/banner'
import { EmptyState } from '~/components/ui/empty-state'
import { PageHeader } from '~/components/ui/page-header'
import { useLiveRevalidation } from '~/islands/realtime/use-live-revalidation'
import { devicesQuery } from '~/lib/admin/devices'
import { createServerApi } from '~/lib/api.server'
import { useLocale } from '~/root'
import type { Route } from './+types/devices'
import { loadDevicesPage, revokeDevice, unknownIntent } from './devices.server'

/**
 * Administration › Devices (issue 13, docs/admin/join-requests-and-devices.md): the phones,
 * tablets and browsers the organisation's people registered. Revoking one ends its sessions and
 * its sync. Filters (person, platform, revoked ones too) live in the URL.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const query = devicesQuery(new URL(request.url))
  const { api, responseHeaders } = createServerApi(request, context)
  const page = await loadDevicesPage(api, query, responseHeaders)
  return data({ query, ...page }, { headers: responseHeaders })
}

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const query = devicesQuery(new URL(request.url))
  switch (String(formData.get('intent') ?? '')) {
    case 'revoke':
      return revokeDevice(api, formData, query, responseHeaders)
    default:
      return unknownIntent()
  }
}

export default function Devices({ loaderData }: Route.ComponentProps) {
  const { query, items, nextCursor, platforms, people } = loaderData
  const actionData = useActionData<typeof action>() as ReportingActionData | undefined
  const locale = useLocale()
  useLiveRevalidation((change) => change.entityType === 'Device')
  const filtered = query.userId !== null || query.platform !== null
  return (
    <>
      <PageHeader title="Devices" description="Phones, tablets and browsers your people registered for sync and notifications. Revoking one signs it out and stops its sync." />
      {actionData?.notice ? (
        <Banner tone="critical" title="That did not work" correlationId={actionData.notice.correlationId} className="mb-6">
          {actionData.notice.message}
        </Banner>
      ) : null}
      <DevicesFilters query={query} platforms={platforms} people={people} />
      <DevicesTable
        devices={items}
        locale={locale}
        pagination={{ previous: query.after ? { after: null } : null, next: nextCursor ? { after: nextCursor } : null, label: 'Device pages' }}
        emptyState={
          <EmptyState heading={filtered ? 'No devices match' : 'No devices registered'}>
            {filtered
              ? 'Try another person or platform, or include revoked devices.'
              : 'A device appears here when someone signs in on the app and it registers for sync or notifications.'}
          </EmptyState>
        }
      />
    </>
  )
}

export function meta() {
  return [{ title: 'Devices · Site Portal' }]
}
