import { revalidateAfterConflict } from '~/lib/revalidate-after-conflict'
import { data, Link, useActionData } from 'react-router'
import { AddPackageForm, RenamePackageForm } from '~/components/admin/packages-forms'
import { ProjectPackagesForm } from '~/components/admin/packages-project-form'
import { PackagesTable } from '~/components/admin/packages-table'
import { ProjectPicker } from '~/components/documents/project-picker'
import { resultFor, revisionFor } from '~/components/reporting/report-action'
import { Banner } from '~/components/ui/banner'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { useLiveRevalidation } from '~/islands/realtime/use-live-revalidation'
import { packagesHref, packagesQuery } from '~/lib/admin/packages-query'
import { createServerApi } from '~/lib/api.server'
import { projectTitle } from '~/lib/reporting/types'
import { useLocale } from '~/root'
import type { Route } from './+types/packages'
import { addPackage, loadPackagesPage, renamePackage, saveProjectPackages, togglePackage, type PackagesActionData } from './packages.server'

/**
 * Administration › Packages (docs/admin/packages-and-uploads.md): the organisation's trades or
 * work packages (add, rename, activate, deactivate) and, per project, its own settings over them.
 * A deactivated package stays on the items that have it; new items cannot choose it.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const query = packagesQuery(new URL(request.url))
  const { api, responseHeaders } = createServerApi(request, context)
  const page = await loadPackagesPage(api, query, responseHeaders)
  return data({ query, ...page }, { headers: responseHeaders })
}

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const query = packagesQuery(new URL(request.url))
  switch (String(formData.get('intent') ?? '')) {
    case 'add':
      return addPackage(api, formData, query, responseHeaders)
    case 'rename':
      return renamePackage(api, formData, query, responseHeaders)
    case 'toggle':
      return togglePackage(api, formData, query, responseHeaders)
    case 'project':
      return saveProjectPackages(api, formData, responseHeaders)
    default:
      throw data('Unknown intent', { status: 400 })
  }
}

export default function Packages({ loaderData }: Route.ComponentProps) {
  const { query, packages, renaming, projects, project, projectSettings, projectSettingsRevision } = loaderData
  const actionData = useActionData<typeof action>() as PackagesActionData | undefined
  const locale = useLocale()
  useLiveRevalidation((change) => change.entityType === 'Package')
  const notice = actionData?.notice
  const listHref = packagesHref({ projectId: query.projectId })
  return (
    <>
      <PageHeader
        title="Packages"
        description="The trades or work packages items are filed under. Deactivating one keeps it on the items that have it; new items cannot choose it."
      />
      {notice ? (
        <Banner tone="critical" title="That did not work" correlationId={notice.correlationId} className="mb-6">
          {notice.message}
        </Banner>
      ) : null}
      <div className="flex flex-col gap-10">
        {renaming ? (
          <Section title={`Rename ${renaming.name}`}>
            <RenamePackageForm
              key={renaming.key}
              pkg={renaming}
              revision={revisionFor(actionData, 'rename', renaming.key, renaming.revision)}
              lastResult={resultFor(actionData, 'rename', renaming.key)}
              cancelTo={listHref}
            />
          </Section>
        ) : null}
        <Section title="Organisation packages" description="Active packages are offered on every project, unless a project switches one off.">
          <PackagesTable packages={packages} locale={locale} renameHref={(key) => packagesHref({ projectId: query.projectId, rename: key })} />
        </Section>
        <Section title="Add a package">
          <AddPackageForm lastResult={resultFor(actionData, 'add')} />
        </Section>
        <Section title="Packages of one project" description="A project can switch a package on or off for itself, whatever the organisation says, or follow the organisation.">
          <div className="flex flex-col gap-6">
            <ProjectPicker projects={projects} projectId={query.projectId} action="/admin/packages" selectId="packages-project" />
            {project && projectSettings ? (
              <ProjectPackagesForm
                // A save by someone else, shown live, draws the form anew: choices are never sent against a revision they were not made on.
                key={`${project.id}-${projectSettingsRevision}`}
                projectId={project.id}
                projectName={projectTitle(project.title)}
                settings={projectSettings}
                revision={revisionFor(actionData, 'project', project.id, projectSettingsRevision)}
                chosen={actionData?.intent === 'project' && actionData.targetId === project.id ? actionData.chosen : undefined}
              />
            ) : query.projectId ? (
              <p className="text-sm text-muted">
                That project was not found. <Link to="/admin/packages">Choose another</Link>.
              </p>
            ) : null}
          </div>
        </Section>
      </div>
    </>
  )
}

export function meta() {
  return [{ title: 'Packages · Site Portal' }]
}

/** After a save refused as stale the screen reads its data again (app/lib/revalidate-after-conflict.ts). */
export const shouldRevalidate = revalidateAfterConflict
