import { data, Link } from 'react-router'
import { SchemaIncidentsFilters } from '~/components/admin/schema-incidents-filters'
import { SchemaIncidentOccurrences, SchemaIncidentsTable } from '~/components/admin/schema-incidents-table'
import { Banner } from '~/components/ui/banner'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { schemaIncidentsHref, schemaIncidentsQuery } from '~/lib/admin/schema-incidents'
import { createServerApi } from '~/lib/api.server'
import { useLocale } from '~/root'
import type { Route } from './+types/schema-incidents'
import { loadSchemaIncidents } from './schema-incidents.server'

/**
 * Administration › Schema incidents (issue 15; docs/observability.md): answers of the server that
 * did not match the shape their call declares, grouped by call and field, with each group's
 * occurrences one link away (`?group=`). Filters and paging live in the URL; no JavaScript needed.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const query = schemaIncidentsQuery(new URL(request.url))
  const { api, responseHeaders } = createServerApi(request, context)
  return data({ query, ...(await loadSchemaIncidents(api, query)) }, { headers: responseHeaders })
}

export default function SchemaIncidents({ loaderData }: Route.ComponentProps) {
  const { query, list, fieldErrors, notice, occurrences, occurrencesMissing } = loaderData
  const locale = useLocale()
  const filtered = query.path !== null || query.since !== null || query.source !== null
  const link = 'text-sm text-primary-strong underline underline-offset-2'
  return (
    <>
      <PageHeader
        title="Schema incidents"
        description="Answers of the server that did not match the shape their call promises. The server checks a sample of its answers; each mismatch is recorded here instead of breaking a screen."
      />
      <div className="flex flex-col gap-10">
        {query.group ? (
          <Section
            title={occurrences ? `Occurrences: ${occurrences.group.method} ${occurrences.group.path} ${occurrences.group.field}` : 'Occurrences'}
            description={occurrences ? `${occurrences.group.count} in all, newest first.` : undefined}
            actions={
              <Link to={schemaIncidentsHref({ ...query, group: null })} className={link}>
                Close occurrences
              </Link>
            }
          >
            {occurrences ? (
              <SchemaIncidentOccurrences incidents={occurrences.items} locale={locale} />
            ) : occurrencesMissing ? (
              <p className="text-sm text-muted">These incidents are no longer there (removed after 90 days), or belong to another scope.</p>
            ) : null}
          </Section>
        ) : null}
        <Section
          title="By call and field"
          description="Last seen first."
          actions={
            filtered ? (
              <Link to={schemaIncidentsHref({ scope: query.scope })} className={link}>
                Clear filters
              </Link>
            ) : undefined
          }
        >
          <div className="flex flex-col gap-4">
            <SchemaIncidentsFilters query={query} errors={fieldErrors} />
            {notice ? (
              <Banner tone="critical" title="The incidents could not be loaded" correlationId={notice.correlationId}>
                {notice.message}
              </Banner>
            ) : null}
            {list ? (
              <SchemaIncidentsTable
                groups={list.items}
                query={query}
                locale={locale}
                filtered={filtered}
                pagination={{
                  previous: list.page > 1 ? { page: list.page === 2 ? null : String(list.page - 1), group: null } : null,
                  next: list.nextPage ? { page: String(list.nextPage), group: null } : null,
                  summary: `Page ${list.page}`,
                  label: 'Schema incident pages',
                }}
              />
            ) : null}
          </div>
        </Section>
      </div>
    </>
  )
}

export function meta() {
  return [{ title: 'Schema incidents · Administration · Site Portal' }]
}
