import { data, Link } from 'react-router'
import { FrontendErrorsFilters } from '~/components/admin/frontend-errors-filters'
import { FrontendErrorsTable } from '~/components/admin/frontend-errors-table'
import { Banner } from '~/components/ui/banner'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { hasFrontendErrorFilters } from '~/lib/admin/frontend-errors'
import { createServerApi } from '~/lib/api.server'
import { useLocale } from '~/root'
import type { Route } from './+types/frontend-errors'
import { loadFrontendErrors } from './frontend-errors.server'

/**
 * Administration › Frontend errors (spec §2, issue 15): errors in the browsers of the
 * organisation's people, one row per error however often it happened (message and top frames),
 * with filters in the address and paging. Each opens with its occurrences and mapped stack.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  return data(await loadFrontendErrors(api, request), { headers: responseHeaders })
}

export default function FrontendErrors({ loaderData }: Route.ComponentProps) {
  const { filters, page, list, fieldErrors, notice } = loaderData
  const locale = useLocale()
  const filtered = hasFrontendErrorFilters(filters)
  return (
    <>
      <PageHeader
        title="Frontend errors"
        description="Errors in people’s browsers: scripts that threw, promises nobody caught, screens that failed to load. Search by a visitor’s correlation id to find what one person ran into."
      />
      <Section
        title="Errors"
        description="Most recently seen first. The filters choose which occurrences are counted."
        actions={
          page > 1 || filtered ? (
            <Link to="/admin/frontend-errors" className="text-sm text-primary-strong underline underline-offset-2">
              {filtered ? 'Clear filters' : 'First page'}
            </Link>
          ) : undefined
        }
      >
        <div className="flex flex-col gap-4">
          <FrontendErrorsFilters filters={filters} errors={fieldErrors} />
          {notice ? (
            <Banner tone="critical" title="The errors could not be loaded" correlationId={notice.correlationId}>
              {notice.message}
            </Banner>
          ) : null}
          {list ? (
            <FrontendErrorsTable
              groups={list.items}
              locale={locale}
              filtered={filtered}
              pagination={{
                previous: page > 1 ? { page: page > 2 ? String(page - 1) : null } : null,
                next: list.hasMore ? { page: String(page + 1) } : null,
                summary: `Page ${page}`,
                label: 'Error pages',
              }}
            />
          ) : null}
        </div>
      </Section>
    </>
  )
}

export function meta() {
  return [{ title: 'Frontend errors · Site Portal' }]
}
