import { data, useActionData } from 'react-router'
import { AuditFilters } from '~/components/admin/audit-filters'
import { AuditTable } from '~/components/admin/audit-table'
import { AuditVerify } from '~/components/admin/audit-verify'
import { cursorPagination } from '~/components/reporting/report-paging'
import { Banner } from '~/components/ui/banner'
import { buttonClasses } from '~/components/ui/button'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { auditQuery, hasFilters, type VerifyActionData } from '~/lib/admin/audit'
import { createServerApi } from '~/lib/api.server'
import { useLocale } from '~/root'
import type { Route } from './+types/audit'
import { loadAuditPage, verifyChain } from './audit.server'

/**
 * Administration › Audit (spec §2; docs/admin/audit.md): every security-relevant and admin action,
 * newest first, with filters in the address, paging, CSV exports of the entries and of the action
 * counts (plain links to the API: the browser sends the session cookie), and the hash chain check.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  return data(await loadAuditPage(api, request), { headers: responseHeaders })
}

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  if (String(formData.get('intent') ?? '') !== 'verify') throw data('Unknown intent', { status: 400 })
  return verifyChain(api, responseHeaders)
}

export default function Audit({ loaderData }: Route.ComponentProps) {
  const { filters, position, list, actions, fieldErrors, notice } = loaderData
  const actionData = useActionData<typeof action>() as VerifyActionData | undefined
  const locale = useLocale()
  const query = auditQuery(filters).toString()
  const exportLink = buttonClasses({ variant: 'secondary', size: 'sm' })
  return (
    <>
      <PageHeader title="Audit" description="Who did what, to what, when and from where. Every entry is chained to the one before it, so a changed or removed entry shows." />
      <div className="flex flex-col gap-10">
        <Section
          title="Log"
          description="Newest first. Choose a person or a target in a row to see only their entries."
          actions={
            <>
              <a href={`/api/admin/audit/export${query ? `?${query}` : ''}`} download className={exportLink}>
                Export CSV
              </a>
              <a href={`/api/admin/audit/actions/export${query ? `?${query}` : ''}`} download className={exportLink}>
                Export actions
              </a>
            </>
          }
        >
          <AuditFilters filters={filters} actions={actions} errors={fieldErrors} />
          {notice ? (
            <Banner tone="critical" title="The log could not be loaded" correlationId={notice.correlationId}>
              {notice.message}
            </Banner>
          ) : null}
          {list ? (
            <AuditTable
              entries={list.items}
              locale={locale}
              filters={filters}
              filtered={hasFilters(filters)}
              pagination={cursorPagination(position, list.nextCursor, 'Audit log pages')}
            />
          ) : null}
        </Section>
        <Section
          title="Chain check"
          description="Recomputes every entry’s hash in the database and checks that each links to the one before it and that the newest matches the chain head. The check itself is recorded."
        >
          <AuditVerify verification={actionData?.verification} notice={actionData?.notice} locale={locale} />
        </Section>
      </div>
    </>
  )
}

export function meta() {
  return [{ title: 'Audit · Administration · Site Portal' }]
}
