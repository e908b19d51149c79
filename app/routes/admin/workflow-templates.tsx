import { revalidateAfterConflict } from '~/lib/revalidate-after-conflict'
import { data, Link, useActionData } from 'react-router'
import { TemplateForm } from '~/components/doc-control/template-form'
import { TemplateList } from '~/components/doc-control/template-list'
import { templatesHref, templatesQuery } from '~/components/doc-control/template-query'
import { type ReportingActionData, revisionFor } from '~/components/reporting/report-action'
import { Banner } from '~/components/ui/banner'
import { ButtonLink } from '~/components/ui/button-link'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { createServerApi } from '~/lib/api.server'
import { useLocale } from '~/root'
import type { Route } from './+types/workflow-templates'
import { archiveTemplate, loadTemplatesPage, saveTemplate } from './workflow-templates.server'

/**
 * Administration › Workflow templates (spec §2; docs/doc-control.md "Workflow"): the
 * organisation's review templates, and the editor of one (`?new=1`, `?edit={id}`). A template's
 * versions never change: saving writes the next one, and a running review keeps its own.
 * Administrators only: the backend answers 403 to anyone else, shown as the error screen.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const query = templatesQuery(new URL(request.url))
  const { api, responseHeaders } = createServerApi(request, context)
  const page = await loadTemplatesPage(api, query, responseHeaders)
  return data({ query, ...page }, { headers: responseHeaders })
}

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const query = templatesQuery(new URL(request.url))
  switch (String(formData.get('intent') ?? '')) {
    case 'save':
      return saveTemplate(api, formData, query, responseHeaders)
    case 'archive':
      return archiveTemplate(api, formData, query, responseHeaders)
    default:
      throw data('Unknown intent', { status: 400 })
  }
}

export default function WorkflowTemplates({ loaderData }: Route.ComponentProps) {
  const { query, templates, editing, members, parties, notice: loadNotice } = loaderData
  const actionData = useActionData<typeof action>() as ReportingActionData | undefined
  const locale = useLocale()
  const notice = actionData?.notice ?? loadNotice
  const formOpen = query.creating || editing !== null
  return (
    <>
      <PageHeader
        title="Workflow templates"
        description="The steps of a document review: who reviews at each, in what order, in how many working days, and what they may answer."
        actions={formOpen ? undefined : <ButtonLink to={templatesHref({ archived: query.archived, creating: true })}>New template</ButtonLink>}
      />
      {notice ? (
        <Banner tone="critical" title="That did not work" correlationId={notice.correlationId} className="mb-6">
          {notice.message}
        </Banner>
      ) : null}
      <div className="flex flex-col gap-10">
        {formOpen ? (
          <Section
            title={editing ? `Edit ${editing.name}` : 'New template'}
            description={
              editing
                ? `This is version ${editing.version}. Saving makes version ${editing.version + 1}; running reviews keep their version.`
                : 'Version 1 of a new template. Add its steps in the order a document goes through them.'
            }
            actions={
              <Link to={templatesHref({ archived: query.archived })} className="text-sm text-primary-strong underline underline-offset-2">
                Cancel
              </Link>
            }
          >
            <TemplateForm
              key={editing ? `${editing.id}-${editing.version}` : 'new'}
              template={editing}
              members={members}
              parties={parties}
              revision={editing ? revisionFor(actionData, 'save', undefined, editing.revision) : undefined}
              lastResult={actionData?.intent === 'save' ? actionData.result : undefined}
            />
          </Section>
        ) : null}
        <Section
          title="Templates"
          description={query.archived ? 'All templates, archived ones too.' : 'Templates in use. Archived ones start no new review.'}
          actions={
            <Link to={templatesHref({ archived: !query.archived })} className="text-sm text-primary-strong underline underline-offset-2">
              {query.archived ? 'Hide archived templates' : 'Show archived templates'}
            </Link>
          }
        >
          <TemplateList templates={templates} locale={locale} editHref={(id) => templatesHref({ archived: query.archived, editing: id })} />
        </Section>
      </div>
    </>
  )
}

export function meta() {
  return [{ title: 'Workflow templates · Site Portal' }]
}

/** After a save refused as stale the screen reads its data again (app/lib/revalidate-after-conflict.ts). */
export const shouldRevalidate = revalidateAfterConflict
