import { revalidateAfterConflict } from '~/lib/revalidate-after-conflict'
import { parseWithZod } from '@conform-to/zod/v4'
import { data, Link, redirect, useActionData, useLocation } from 'react-router'
import { useReportingAbilities } from '~/components/reporting/project-abilities'
import { ProjectStatusFilter } from '~/components/reporting/project-status-filter'
import { formFailure, invalidForm, noticeFailure, noticeOf, resultFor, revisionFor } from '~/components/reporting/report-action'
import { cursorPagination, cursorPosition, cursorQuery } from '~/components/reporting/report-paging'
import { Badge } from '~/components/ui/badge'
import { Banner } from '~/components/ui/banner'
import { buttonClasses } from '~/components/ui/button'
import { ButtonLink } from '~/components/ui/button-link'
import { ConfirmDialog } from '~/components/ui/confirm-dialog'
import { DataTable, type DataTableColumn } from '~/components/ui/data-table'
import { EmptyState } from '~/components/ui/empty-state'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { liveMatch, useLiveRevalidation } from '~/islands/realtime/use-live-revalidation'
import { createServerApi } from '~/lib/api.server'
import { setFlash } from '~/lib/flash.server'
import { formatDate } from '~/lib/format'
import { type Project, projectTitle } from '~/lib/reporting/types'
import { revisionFromForm } from '~/lib/schemas/edit-conflict'
import { ProjectCreateSchema, ProjectRenameSchema, ProjectStatusSchema } from '~/lib/schemas/reporting-projects'
import { useLocale } from '~/root'
import type { Route } from './+types/projects'
import { deferred, partsBeforeNavigation } from '~/components/ui/deferred'

// The forms hydrate after the rest of the screen (app/components/ui/deferred.tsx), so the form
// library is not in the screen's first load.
const loadProjectCreateForm = async () => (await import('~/components/reporting/project-create-form')).ProjectCreateForm
const ProjectCreateForm = deferred(loadProjectCreateForm, import.meta.env.SSR ? await loadProjectCreateForm() : undefined)
const loadProjectRenameForm = async () => (await import('~/components/reporting/project-rename-form')).ProjectRenameForm
const ProjectRenameForm = deferred(loadProjectRenameForm, import.meta.env.SSR ? await loadProjectRenameForm() : undefined)
await partsBeforeNavigation(ProjectCreateForm, ProjectRenameForm)

/**
 * Projects (spec §2): the organisation's sites, active or archived, newest first. Read-write
 * members create and rename them, administrators archive and unarchive them. The URL holds the
 * list's state (`status`, the paging cursors, and `edit` for the project being renamed).
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const url = new URL(request.url)
  const status = statusOf(url.searchParams)
  const position = cursorPosition(url.searchParams)
  const editId = url.searchParams.get('edit')
  const { api, responseHeaders } = createServerApi(request, context)
  const query = new URLSearchParams({ status, ...cursorQuery(position) })
  const [list, editing] = await Promise.all([
    api.GET('/api/projects', { query: new URLSearchParams(query) }),
    editId ? api.GET('/api/projects/{id}', { path: { id: editId } }) : null,
  ])
  if (editing && !editing.ok && editing.error.status === 404) throw data(null, { status: 404, headers: responseHeaders })
  return data(
    {
      status,
      position,
      page: list.ok ? list.data : null,
      loadNotice: list.ok ? null : noticeOf(list.error),
      editing: editing?.ok ? editing.data : null,
    },
    { headers: responseHeaders },
  )
}

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  // Back to the list the user was on, without the edit form.
  const url = new URL(request.url)
  url.searchParams.delete('edit')
  const back = `${url.pathname}${url.search}`
  const intent = String(formData.get('intent') ?? '')
  switch (intent) {
    case 'create': {
      const submission = parseWithZod(formData, { schema: ProjectCreateSchema })
      if (submission.status !== 'success') return invalidForm(intent, submission)
      const result = await api.POST('/api/projects', { body: submission.value, idempotencyKey: true })
      if (!result.ok) return formFailure(intent, submission, result.error, responseHeaders)
      await setFlash(responseHeaders, { tone: 'success', message: `Project “${projectTitle(result.data.title)}” created.` })
      throw redirect('/projects', { headers: responseHeaders })
    }
    case 'rename': {
      const submission = parseWithZod(formData, { schema: ProjectRenameSchema })
      const targetId = String(formData.get('projectId') ?? '')
      if (submission.status !== 'success') return invalidForm(intent, submission, targetId)
      const { projectId, title, code } = submission.value
      // An emptied field clears it: the API stores an empty title or code as none.
      const result = await api.PATCH('/api/projects/{id}', { path: { id: projectId }, body: { title: title ?? '', code: code ?? '', expectedRevision: revisionFromForm(formData.get('expectedRevision')) } })
      if (!result.ok) return formFailure(intent, submission, result.error, responseHeaders, targetId)
      await setFlash(responseHeaders, { tone: 'success', message: `Project saved as “${projectTitle(result.data.title)}”.` })
      throw redirect(back, { headers: responseHeaders })
    }
    case 'archive':
    case 'unarchive': {
      const submission = parseWithZod(formData, { schema: ProjectStatusSchema })
      if (submission.status !== 'success') throw data('The project is missing.', { status: 400 })
      const { projectId } = submission.value
      const result = intent === 'archive' ? await api.POST('/api/projects/{id}/archive', { path: { id: projectId } }) : await api.POST('/api/projects/{id}/unarchive', { path: { id: projectId } })
      if (!result.ok) return noticeFailure(intent, result.error, responseHeaders, projectId)
      const name = projectTitle(result.data.title)
      const message = intent === 'archive' ? `“${name}” archived. It is listed under Archived.` : `“${name}” is active again.`
      await setFlash(responseHeaders, { tone: 'success', message })
      throw redirect(back, { headers: responseHeaders })
    }
    default:
      throw data('Unknown intent', { status: 400 })
  }
}

export default function Projects({ loaderData }: Route.ComponentProps) {
  useLiveRevalidation(liveMatch.projects)
  const { status, position, page, loadNotice, editing } = loaderData
  const actionData = useActionData<typeof action>()
  const location = useLocation()
  const locale = useLocale()
  const can = useReportingAbilities()
  const withoutEdit = new URLSearchParams(location.search)
  withoutEdit.delete('edit')
  const listPath = `${location.pathname}${withoutEdit.size > 0 ? `?${withoutEdit}` : ''}`

  function editPath(projectId: string) {
    const params = new URLSearchParams(withoutEdit)
    params.set('edit', projectId)
    return `${location.pathname}?${params}`
  }

  const columns: Array<DataTableColumn<Project>> = [
    {
      key: 'title',
      header: 'Project',
      rowHeader: true,
      cell: (project) => (
        <Link to={`/reports?projectId=${encodeURIComponent(project.id)}`} className="text-primary-strong underline underline-offset-2">
          {projectTitle(project.title)}
        </Link>
      ),
    },
    { key: 'code', header: 'Code', cell: (project) => <span className="whitespace-nowrap">{project.code ?? '—'}</span> },
    {
      key: 'status',
      header: 'Status',
      // The filter above already says which ones these are.
      hideOnMobile: true,
      cell: (project) => (project.status === 'archived' ? <Badge>Archived</Badge> : <Badge tone="success">Active</Badge>),
    },
    { key: 'created', header: 'Created', hideOnMobile: true, cell: (project) => formatDate(project.createdAtUtc, locale) },
  ]
  if (can.write || can.archiveProjects) {
    columns.push({
      key: 'actions',
      header: 'Actions',
      cell: (project) => <ProjectActions project={project} editTo={editPath(project.id)} canRename={can.write} canArchive={can.archiveProjects} />,
    })
  }

  const notice = actionData?.notice ?? loadNotice
  return (
    <>
      <PageHeader
        title="Projects"
        description="Your organisation’s sites. Open a project to see its reports."
        actions={
          can.write ? (
            // An in-page jump to the form (below the list on a phone): a plain anchor, no navigation.
            <a href="#new-project" className={buttonClasses({ variant: 'secondary' })}>
              New project
            </a>
          ) : undefined
        }
      />
      {notice ? (
        <Banner tone="critical" title="That did not work" correlationId={notice.correlationId} className="mb-6">
          {notice.message}
        </Banner>
      ) : null}
      {editing && can.write ? (
        <ProjectRenameForm
          key={editing.id}
          project={editing}
          revision={revisionFor(actionData, 'rename', editing.id, editing.revision)}
          cancelTo={listPath}
          lastResult={resultFor(actionData, 'rename', editing.id)}
        />
      ) : null}
      <div className="grid gap-8 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
        <div className="flex min-w-0 flex-col gap-4">
          <ProjectStatusFilter current={status} />
          {page ? (
            <DataTable
              caption={status === 'archived' ? 'Archived projects' : 'Active projects'}
              columns={columns}
              rows={page.items}
              rowKey={(project) => project.id}
              pagination={cursorPagination(position, page.nextCursor, 'Projects pages')}
              emptyState={<ProjectsEmpty archived={status === 'archived'} canCreate={can.write} />}
            />
          ) : null}
        </div>
        {can.write ? (
          <Section title="New project" description="It starts active, and everyone in your organisation sees it.">
            <div id="new-project" className="scroll-mt-4">
              <ProjectCreateForm key={location.key} lastResult={resultFor(actionData, 'create')} />
            </div>
          </Section>
        ) : null}
      </div>
    </>
  )
}

function ProjectActions({ project, editTo, canRename, canArchive }: { project: Project; editTo: string; canRename: boolean; canArchive: boolean }) {
  const name = projectTitle(project.title)
  return (
    <div className="flex flex-wrap items-start gap-2">
      {canRename ? (
        <ButtonLink to={editTo} variant="secondary" size="sm" aria-label={`Rename ${name}`}>
          Rename
        </ButtonLink>
      ) : null}
      {canArchive && project.status === 'active' ? (
        <ConfirmDialog
          triggerLabel="Archive…"
          title={`Archive “${name}”?`}
          confirmLabel="Yes, archive project"
          pendingLabel="Archiving…"
          intent="archive"
          fields={{ projectId: project.id }}
        >
          It leaves the active list and takes no new reports or items. Its reports and items stay readable, and an administrator can unarchive it.
        </ConfirmDialog>
      ) : null}
      {canArchive && project.status === 'archived' ? (
        <ConfirmDialog
          triggerLabel="Unarchive…"
          title={`Unarchive “${name}”?`}
          confirmLabel="Yes, unarchive project"
          pendingLabel="Unarchiving…"
          intent="unarchive"
          fields={{ projectId: project.id }}
          tone="primary"
        >
          It returns to the active list and takes new reports and items again.
        </ConfirmDialog>
      ) : null}
    </div>
  )
}

function ProjectsEmpty({ archived, canCreate }: { archived: boolean; canCreate: boolean }) {
  if (archived) return <EmptyState heading="No archived projects">Projects an administrator archives are listed here.</EmptyState>
  return (
    <EmptyState heading="No projects yet">
      {canCreate ? 'Create the first project with the “New project” form.' : 'When someone in your organisation creates a project, it is listed here.'}
    </EmptyState>
  )
}

function statusOf(searchParams: URLSearchParams): 'active' | 'archived' {
  return searchParams.get('status') === 'archived' ? 'archived' : 'active'
}

export function meta() {
  return [{ title: 'Projects · Site Portal' }]
}

/** After a save refused as stale the screen reads its data again (app/lib/revalidate-after-conflict.ts). */
export const shouldRevalidate = revalidateAfterConflict
