import { loadError } from '~/components/reporting/item-action'
import { noticeOf, type Notice } from '~/components/reporting/report-action'
import type { ApiClient, ApiResult } from '~/lib/api/types'
import { type DocumentsQuery, isSearching, searchParamsOf } from '~/lib/documents/query'
import { atLeast, exampleNumber } from '~/lib/documents/rules'
import type { Breadcrumb, DocumentTree, Folder, FolderNode, MetadataField, NamingField, PermissionLevel, Permissions, SearchPage } from '~/lib/documents/types'
import { type Member, type Project, projectTitle } from '~/lib/reporting/types'

/** GET …/documents/tree as it answers (the first page of documents may come with it). */
type TreeAnswer = DocumentTree

export type ProjectChoice = Pick<Project, 'id' | 'title' | 'status'>

export type ProjectDocuments = {
  project: ProjectChoice & { name: string }
  /** The folder on screen (null: the project's top) and the folders above it. */
  folder: Folder | null
  /** The caller's level in that folder (or at the project's top): which forms to offer. */
  access: PermissionLevel
  breadcrumbs: Breadcrumb[]
  /** The top folders, with the path to the current folder open. */
  tree: FolderNode[]
  /** The current folder's sub-folders. */
  subfolders: FolderNode[]
  searching: boolean
  list: SearchPage | null
  disciplines: Array<{ code: string; description: string }>
  example: string
  /** The naming standard's fields, for the upload form's number builder. */
  namingFields: NamingField[]
  metadataFields: MetadataField[]
  /** The entries set here and what applies from above, for a manager (null otherwise); the members to add. */
  permissions: Permissions | null
  members: Member[]
  notice: Notice | null
}

export type DocumentsScreen = { projects: ProjectChoice[]; documents: ProjectDocuments | null; notice: Notice | null }

/** One level of the project's folder tree: its top, or the folders under one. */
const treeLevel = (api: ApiClient, projectId: string, folderId: string | null) =>
  api.GET('/api/projects/{id}/documents/tree', { path: { id: projectId }, query: { folderId: folderId ?? undefined, depth: 1 } })

/**
 * Everything /documents shows, in two rounds of calls at most: the projects to pick from; and for
 * the chosen project its top folders, the current folder (its breadcrumbs and sub-folders), the
 * list or the search results, the naming standard (the example number and the disciplines to
 * filter by) and the metadata fields of the upload form; then one level under each folder on the
 * way down, so the tree shows the path to the current folder open without loading all of it.
 * An unknown project or folder is the 404 screen.
 */
export async function loadDocumentsScreen(api: ApiClient, query: DocumentsQuery, headers: Headers): Promise<DocumentsScreen> {
  const projectsCall = api.GET('/api/projects', { query: { status: 'active', limit: 100 } })
  if (!query.projectId) {
    const projects = await projectsCall
    return { projects: projects.ok ? projects.data.items.map(choiceOf) : [], documents: null, notice: projects.ok ? null : noticeOf(projects.error) }
  }
  const projectId = query.projectId
  const searching = isSearching(query)
  const [projects, project, top, here, list, naming, metadata] = await Promise.all([
    projectsCall,
    api.GET('/api/projects/{id}', { path: { id: projectId } }),
    treeLevel(api, projectId, null),
    query.folderId ? treeLevel(api, projectId, query.folderId) : null,
    api.GET('/api/documents/search', { query: new URLSearchParams(searchParamsOf({ ...query, projectId })) }),
    api.GET('/api/projects/{id}/naming-standard', { path: { id: projectId } }),
    api.GET('/api/projects/{id}/metadata-fields', { path: { id: projectId } }),
  ])
  if (!project.ok) throw loadError(project.error, headers)
  if (here && !here.ok) throw loadError(here.error, headers)
  if (!top.ok) throw loadError(top.error, headers)

  const folder = here?.ok ? here.data.folder : null
  const breadcrumbs = folder?.breadcrumbs ?? []
  const levels = await Promise.all(breadcrumbs.map((crumb) => treeLevel(api, projectId, crumb.id)))
  const tree = openPath(top.data.folders, [...breadcrumbs.map((crumb, index) => ({ id: crumb.id, level: levels[index] ?? null })), ...(folder && here ? [{ id: folder.id, level: here }] : [])])
  const subfolders = here?.ok ? here.data.folders : top.data.folders

  // A manager here also gets the permissions of this folder (or of the project, at its top).
  const access = (here?.ok ? here.data : top.data).access
  const [permissions, members] = atLeast(access, 'manage')
    ? await Promise.all([folder ? api.GET('/api/folders/{id}/permissions', { path: { id: folder.id } }) : api.GET('/api/projects/{id}/permissions', { path: { id: projectId } }), api.GET('/api/members')])
    : [null, null]
  const choices = projects.ok ? projects.data.items.map(choiceOf) : []
  // An archived project is not in the active list: keep it in the picker while it is open.
  if (!choices.some((p) => p.id === projectId)) choices.push(choiceOf(project.data))
  const fields = naming.ok ? naming.data.fields : []
  const failed = [list, naming, metadata, projects, ...levels].find((result): result is Extract<ApiResult<unknown>, { ok: false }> => !result.ok)
  return {
    projects: choices,
    notice: null,
    documents: {
      project: { ...choiceOf(project.data), name: projectTitle(project.data.title) },
      folder,
      access,
      breadcrumbs,
      tree,
      subfolders,
      searching,
      list: list.ok ? list.data : null,
      disciplines: fields.find((f) => f.key === 'role')?.codes ?? [],
      example: naming.ok ? (naming.data.example ?? exampleNumber(fields)) : '',
      namingFields: fields,
      metadataFields: metadata.ok ? metadata.data.items : [],
      permissions: permissions?.ok ? permissions.data : null,
      members: members?.ok ? members.data.items : [],
      notice: failed ? noticeOf(failed.error) : null,
    },
  }
}

function choiceOf(project: Project): ProjectChoice {
  return { id: project.id, title: project.title, status: project.status }
}

/** The top folders with each folder on the way down given the sub-folders its own call answered. */
function openPath(top: FolderNode[], path: Array<{ id: string; level: ApiResult<TreeAnswer> | null }>): FolderNode[] {
  const roots = top.map((node) => ({ ...node, children: undefined }) as FolderNode)
  let siblings: FolderNode[] = roots
  for (const step of path) {
    const node = siblings.find((candidate) => candidate.id === step.id)
    if (!node || !step.level?.ok) break
    node.children = step.level.data.folders.map((child) => ({ ...child, children: undefined }))
    siblings = node.children
  }
  return roots
}
