import { data, useActionData, useLocation } from 'react-router'
import { folderAbilities } from '~/components/documents/document-abilities'
import { type DocumentsActionData, UPLOAD_FINISHED, UPLOAD_REFUSED } from '~/components/documents/document-action'
import { DocumentBreadcrumbs } from '~/components/documents/document-breadcrumbs'
import { DocumentList } from '~/components/documents/document-list'
import { DocumentSearchForm } from '~/components/documents/document-search-form'
import { FolderTree } from '~/components/documents/folder-tree'
import { DocumentsNav } from '~/components/documents/documents-nav'
import { inboxTaskCount } from '~/components/documents/documents-nav.server'
import { SubfolderList } from '~/components/documents/subfolder-list'
import { useResumableForm } from '~/components/documents/use-resumable-form'
import { resultFor } from '~/components/reporting/report-action'
import { Banner } from '~/components/ui/banner'
import { deferred, partsBeforeNavigation } from '~/components/ui/deferred'
import { buttonClasses } from '~/components/ui/button'
import { EmptyState } from '~/components/ui/empty-state'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { useLiveRevalidation } from '~/islands/realtime/use-live-revalidation'
import { createServerApi } from '~/lib/api.server'
import { documentsChanged } from '~/lib/documents/live'
import { goToRememberedProject, rememberProject } from '~/lib/documents/project-memory.server'
import { type DocumentsQuery, folderHref, parseDocumentsQuery, registerExportHref, registerJobFilters } from '~/lib/documents/query'
import { exportJobKindOf } from '~/lib/exports/intents'
import { startBackgroundExport } from '~/lib/exports/start-export.server'
import type { ExportEstimate } from '~/lib/exports/types'
import { noticeFailure } from '~/components/reporting/report-action'
import { useLocale } from '~/root'
import type { Route } from './+types/documents'
import { checkName, createFolder, uploadDocument, uploadFinished, uploadRefused } from './documents-actions.server'
import { savePermissions } from './documents-document.server'
import { loadDocumentsScreen } from './documents-load.server'

// The job form of an export too large to stream, fetched only when the screen shows it (app/components/ui/deferred.tsx).
const loadExportForm = async () => (await import('~/components/exports/background-export-form')).BackgroundExportForm
const BackgroundExportForm = deferred(loadExportForm, import.meta.env.SSR ? await loadExportForm() : undefined, { fetchNow: false })

/**
 * Documents (spec §2; docs/documents.md "Screens"): pick a project, walk its folders, list the
 * documents of one folder or search them, create folders and upload documents. Everything the
 * screen shows is in the URL (`projectId`, `folderId`, `q`, the filters, `page`).
 */
// The forms below the list hydrate after the rest of the screen (app/components/ui/deferred.tsx):
// the list and the search do not need the form library.
const loadUploadForm = async () => (await import('~/components/documents/document-upload-form')).DocumentUploadForm
const loadPermissionsForm = async () => (await import('~/components/documents/document-permissions-form')).DocumentPermissionsForm
const loadFolderCreateForm = async () => (await import('~/components/documents/folder-create-form')).FolderCreateForm
const DocumentUploadForm = deferred(loadUploadForm, import.meta.env.SSR ? await loadUploadForm() : undefined)
const DocumentPermissionsForm = deferred(loadPermissionsForm, import.meta.env.SSR ? await loadPermissionsForm() : undefined)
const FolderCreateForm = deferred(loadFolderCreateForm, import.meta.env.SSR ? await loadFolderCreateForm() : undefined)
await partsBeforeNavigation(DocumentUploadForm, DocumentPermissionsForm, FolderCreateForm)

export async function loader({ request, context }: Route.LoaderArgs) {
  const query = parseDocumentsQuery(new URL(request.url).searchParams)
  const { api, responseHeaders } = createServerApi(request, context)
  const projectId = query.projectId
  const [screen, inboxCount, registerSize] = await Promise.all([
    loadDocumentsScreen(api, query, responseHeaders),
    inboxTaskCount(api),
    projectId ? api.GET('/api/exports/estimate', { query: new URLSearchParams({ kind: 'register-csv', ...registerJobFilters({ ...query, projectId }) }) }) : null,
  ])
  if (!query.projectId) goToRememberedProject(request, responseHeaders, screen.projects)
  else if (screen.documents) rememberProject(request, responseHeaders, screen.documents.project.id)
  // A register too large to stream is exported as a job (docs/exports.md); without the answer, it streams as before.
  const exportJob = registerSize?.ok && registerSize.data.asJob ? registerSize.data : null
  return data({ query, ...screen, inboxCount, exportJob }, { headers: responseHeaders })
}

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const query = parseDocumentsQuery(new URL(request.url).searchParams)
  const { projectId, folderId } = query
  const intent = String(formData.get('intent') ?? '')
  const exportKind = exportJobKindOf(intent, REGISTER_EXPORTS.map((format) => format.kind))
  if (exportKind) {
    const failed = await startBackgroundExport(api, responseHeaders, formData, { kind: exportKind, ...registerJobFilters({ ...query, projectId: requireProject(projectId) }) })
    return noticeFailure(intent, failed.error, responseHeaders)
  }
  switch (intent) {
    case 'create-folder':
      return createFolder(api, requireProject(projectId), formData, responseHeaders)
    case 'upload':
      return uploadDocument(api, requireProject(projectId), formData, responseHeaders)
    case 'validate':
      return checkName(api, requireProject(projectId), formData, responseHeaders)
    case UPLOAD_FINISHED:
      return uploadFinished(api, formData, responseHeaders, (doc, code) => `Document ${doc.number} uploaded as ${code}.`)
    case UPLOAD_REFUSED:
      return uploadRefused(api, formData, responseHeaders)
    case 'permissions': {
      const project = requireProject(projectId)
      const target = folderId ? ({ of: 'folder', id: folderId } as const) : ({ of: 'project', id: project } as const)
      return savePermissions(api, { ...target, page: folderHref(project, folderId) }, formData, responseHeaders)
    }
    default:
      throw data('Unknown intent', { status: 400 })
  }
}

function requireProject(projectId: string | null): string {
  if (!projectId) throw data('Choose a project first.', { status: 400 })
  return projectId
}

export default function Documents({ loaderData }: Route.ComponentProps) {
  useLiveRevalidation(documentsChanged)
  const { query, projects, documents, inboxCount, exportJob, notice: loadNotice } = loaderData
  const actionData = useActionData<typeof action>() as DocumentsActionData | undefined
  const notice = actionData?.notice ?? loadNotice ?? documents?.notice
  return (
    <>
      <DocumentsNav projects={projects} projectId={documents?.project.id ?? null} inboxCount={inboxCount} />
      <PageHeader
        title="Documents"
        description="Controlled documents of your projects: folders, revisions and search."
        actions={query.projectId ? <RegisterExports query={{ ...query, projectId: query.projectId }} exportJob={exportJob} /> : undefined}
      />
      {notice ? (
        <Banner tone="critical" title="That did not work" correlationId={notice.correlationId} className="mb-6">
          {notice.message}
        </Banner>
      ) : null}
      {documents && query.projectId ? (
        <ProjectDocuments query={{ ...query, projectId: query.projectId }} documents={documents} actionData={actionData} />
      ) : (
        <EmptyState heading={projects.length > 0 ? 'Choose a project' : 'No projects yet'}>
          {projects.length > 0 ? 'Its folders and documents show here.' : 'Documents belong to a project. Once your organisation has one, choose it here.'}
        </EmptyState>
      )}
    </>
  )
}

type Screen = Route.ComponentProps['loaderData']

/** The register's two formats: links while it streams, the buttons of one job form above EXPORT_JOB_ITEMS documents. */
const REGISTER_EXPORTS = [
  { kind: 'register-csv', label: 'Register CSV', format: 'csv' },
  { kind: 'register-xlsx', label: 'Register Excel', format: 'xlsx' },
] as const

/**
 * The register of the project, folder or search on screen (every page): plain links the browser
 * saves, or, for a register too large to stream, a form that prepares the chosen one in the background.
 */
function RegisterExports({ query, exportJob }: { query: DocumentsQuery & { projectId: string }; exportJob: ExportEstimate | null }) {
  if (exportJob) return <BackgroundExportForm label="Export the register" estimate={exportJob} formats={REGISTER_EXPORTS} />
  const link = buttonClasses({ variant: 'secondary', size: 'sm' })
  return (
    <>
      {REGISTER_EXPORTS.map((format) => (
        <a key={format.kind} href={registerExportHref(query, format.format)} download className={link}>
          {format.label}
        </a>
      ))}
    </>
  )
}

function ProjectDocuments({ query, documents, actionData }: { query: Screen['query'] & { projectId: string }; documents: NonNullable<Screen['documents']>; actionData: DocumentsActionData | undefined }) {
  const locale = useLocale()
  const can = folderAbilities(documents.access)
  const location = useLocation()
  const resumable = useResumableForm({ intent: 'upload', refusedGoesToAction: true })
  const { project, folder, breadcrumbs, tree, subfolders, searching, list } = documents
  const here = folder?.name ?? project.name
  const uploadAnswer = resumable.answer ?? actionData
  return (
    <>
      <DocumentBreadcrumbs projectId={project.id} projectName={project.name} folders={breadcrumbs} current={folder?.name} />
      {resumable.answer?.notice ? (
        <Banner tone="critical" title="That did not work" correlationId={resumable.answer.notice.correlationId} className="mb-6">
          {resumable.answer.notice.message}
        </Banner>
      ) : null}
      <div className="grid gap-6 lg:grid-cols-[minmax(12rem,1fr)_minmax(0,3fr)]">
        <div className="min-w-0">
          <FolderTree projectId={project.id} projectName={project.name} folders={tree} currentId={folder?.id ?? null} />
        </div>
        <div className="flex min-w-0 flex-col gap-8">
          <DocumentSearchForm query={query} disciplines={documents.disciplines} scope={folder ? `${folder.name} and its folders` : project.name} />
          <Section title={searching ? 'Search results' : here} description={searching ? resultsSummary(list?.total) : undefined}>
            {!searching && subfolders.length > 0 ? <SubfolderList projectId={project.id} folders={subfolders} /> : null}
            {list ? (
              <DocumentList
                page={list}
                locale={locale}
                caption={searching ? 'Search results' : `Documents in ${here}`}
                emptyState={
                  <EmptyState heading={searching ? 'No documents match.' : 'No documents in this folder yet.'} headingLevel={3}>
                    {searching ? 'Try part of the number, another word of the title, or fewer filters.' : can.upload ? 'Upload the first one with “Upload document”.' : 'Documents uploaded here are listed here.'}
                  </EmptyState>
                }
              />
            ) : null}
          </Section>
          {can.upload ? (
            <Section title="Upload document" description="A new document and its file as the first revision.">
              <div className="max-w-3xl">
                <DocumentUploadForm
                  folderId={folder?.id ?? null}
                  folderName={here}
                  example={documents.example}
                  namingFields={documents.namingFields}
                  metadataFields={documents.metadataFields}
                  lastResult={resultFor(uploadAnswer, 'upload')}
                  nameCheck={uploadAnswer?.intent === 'upload' ? uploadAnswer.nameCheck : undefined}
                  resumable={resumable}
                />
              </div>
            </Section>
          ) : null}
          {documents.permissions ? (
            <Section title={folder ? 'Permissions of this folder' : 'Permissions of this project'} description="Who may view, upload, edit or manage here and below, unless something nearer says otherwise.">
              <details className="max-w-3xl" open={actionData?.intent === 'permissions'}>
                <summary className="cursor-pointer text-sm font-medium text-primary-strong">Show and change permissions</summary>
                <div className="mt-4">
                  <DocumentPermissionsForm
                key={location.key}
                permissions={documents.permissions}
                members={documents.members}
                lastResult={resultFor(actionData, 'permissions')}
                revision={actionData?.intent === 'permissions' ? actionData.revision : undefined}
                kept={actionData?.intent === 'permissions' ? actionData.permissionsKept : undefined}
              />
                </div>
              </details>
            </Section>
          ) : null}
          {can.createFolders ? (
            <Section title="New folder">
              <div className="max-w-xl">
                <FolderCreateForm key={folder?.id ?? 'top'} parentId={folder?.id ?? null} parentName={here} lastResult={resultFor(actionData, 'create-folder')} />
              </div>
            </Section>
          ) : null}
        </div>
      </div>
    </>
  )
}

function resultsSummary(total: number | undefined): string | undefined {
  if (total === undefined) return undefined
  return total === 1 ? '1 document matches.' : `${total} documents match.`
}

export function meta({ data: loaderData }: Route.MetaArgs) {
  const project = loaderData?.documents?.project.name
  return [{ title: project ? `Documents · ${project} · Site Portal` : 'Documents · Site Portal' }]
}
