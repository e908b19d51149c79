import { data, Link, useActionData } from 'react-router'
import { UploadsStats } from '~/components/admin/uploads-stats'
import { UploadsFilter, UploadsTable } from '~/components/admin/uploads-table'
import type { ReportingActionData } from '~/components/reporting/report-action'
import { Banner } from '~/components/ui/banner'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { useLiveRevalidation } from '~/islands/realtime/use-live-revalidation'
import { uploadsHref, uploadsQuery } from '~/lib/admin/uploads-query'
import { createServerApi } from '~/lib/api.server'
import { useLocale } from '~/root'
import type { Route } from './+types/uploads'
import { abortUpload, loadUploadsPage } from './uploads.server'

/**
 * Administration › Uploads (docs/admin/packages-and-uploads.md "Uploads"): every upload session of
 * the organisation with its state, size, progress and owner, the figures, and abort for a stuck
 * one. Filters and the page are in the URL.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const query = uploadsQuery(new URL(request.url))
  const { api, responseHeaders } = createServerApi(request, context)
  const page = await loadUploadsPage(api, query, responseHeaders)
  return data({ query, ...page }, { headers: responseHeaders })
}

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const query = uploadsQuery(new URL(request.url))
  switch (String(formData.get('intent') ?? '')) {
    case 'abort':
      return abortUpload(api, formData, query, responseHeaders)
    default:
      throw data('Unknown intent', { status: 400 })
  }
}

export default function Uploads({ loaderData }: Route.ComponentProps) {
  const { query, uploads, nextCursor, stats } = loaderData
  const actionData = useActionData<typeof action>() as ReportingActionData | undefined
  const locale = useLocale()
  useLiveRevalidation((change) => change.entityType === 'UploadSession')
  const notice = actionData?.notice
  return (
    <>
      <PageHeader
        title="Uploads"
        description="Photos, document revisions and support attachments as they upload. An open upload with no progress for over an hour is stuck: abort it to free its bytes."
      />
      {notice ? (
        <Banner tone="critical" title="That did not work" correlationId={notice.correlationId} className="mb-6">
          {notice.message}
        </Banner>
      ) : null}
      <div className="flex flex-col gap-10">
        <Section title="Figures" description="Over every upload of the organisation.">
          {stats ? <UploadsStats stats={stats} locale={locale} /> : <p className="text-sm text-muted">The figures could not be loaded just now.</p>}
        </Section>
        <Section
          title="Upload sessions"
          actions={
            query.after ? (
              <Link to={uploadsHref({ state: query.state, purpose: query.purpose })} className="text-sm text-primary-strong underline underline-offset-2">
                First page
              </Link>
            ) : undefined
          }
        >
          <div className="flex flex-col gap-4">
            <UploadsFilter state={query.state} purpose={query.purpose} />
            <UploadsTable uploads={uploads} locale={locale} next={nextCursor} previous={query.after !== null} filtered={query.state !== null || query.purpose !== null} />
          </div>
        </Section>
      </div>
    </>
  )
}

export function meta() {
  return [{ title: 'Uploads · Site Portal' }]
}
