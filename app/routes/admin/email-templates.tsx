import { data, Link } from 'react-router'
import { loadError } from '~/components/reporting/item-action'
import { Badge } from '~/components/ui/badge'
import { DataTable } from '~/components/ui/data-table'
import { PageHeader } from '~/components/ui/page-header'
import { useLiveRevalidation } from '~/islands/realtime/use-live-revalidation'
import type { EmailTemplateSummary } from '~/lib/admin/email-templates'
import { createServerApi } from '~/lib/api.server'
import { formatDateTime } from '~/lib/format'
import { useLocale } from '~/root'
import type { Route } from './+types/email-templates'

/**
 * Administration › Email templates (docs/admin/email-templates.md): every mail the product sends,
 * whether this organisation changed it, and when; each opens to be edited.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  const list = await api.GET('/api/admin/email-templates')
  if (!list.ok) throw loadError(list.error, responseHeaders)
  return data({ templates: list.data.items }, { headers: responseHeaders })
}

export default function EmailTemplates({ loaderData }: Route.ComponentProps) {
  const locale = useLocale()
  useLiveRevalidation((change) => change.entityType === 'EmailTemplate')
  return (
    <>
      <PageHeader
        title="Email templates"
        description="Every mail the site sends. Change the words of any of them for this organisation; the others keep the default. Each mail has an HTML and a plain-text part."
      />
      <DataTable<EmailTemplateSummary>
        caption="Email templates"
        captionHidden
        rows={loaderData.templates}
        rowKey={(row) => row.key}
        columns={[
          {
            key: 'title',
            header: 'Mail',
            rowHeader: true,
            cell: (row) => (
              <div className="flex flex-col gap-0.5">
                <Link to={`/admin/email-templates/${row.key}`} className="font-medium text-primary underline-offset-2 hover:underline">
                  {row.title}
                </Link>
                <span className="text-sm text-muted">{row.description}</span>
              </div>
            ),
          },
          {
            key: 'status',
            header: 'Template',
            cell: (row) => (row.customised ? <Badge tone="info">Customised</Badge> : <Badge>Default</Badge>),
          },
          {
            key: 'changed',
            header: 'Last change',
            hideOnMobile: true,
            cell: (row) =>
              row.updatedAtUtc ? (
                <span className="text-sm">
                  {formatDateTime(row.updatedAtUtc, locale)}
                  {row.updatedBy ? <span className="block text-muted">by {row.updatedBy.displayName}</span> : null}
                </span>
              ) : (
                <span className="text-sm text-muted">Never changed</span>
              ),
          },
        ]}
      />
    </>
  )
}

export function meta() {
  return [{ title: 'Email templates · Site Portal' }]
}
