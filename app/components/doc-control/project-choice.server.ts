import { loadError } from '~/components/reporting/item-action'
import type { ApiClient } from '~/lib/api/types'
import { goToRememberedProject, rememberProject } from '~/lib/documents/project-memory.server'
import type { Project } from '~/lib/reporting/types'
import type { ProjectOption } from '~/components/documents/project-picker'
import { isUuid } from '~/lib/schemas/uuid'

export type ProjectChoiceData = { projects: ProjectOption[]; projectId: string | null; project: Project | null }

/**
 * The projects to choose from and the chosen one (`?projectId=`), for every document-control
 * screen. An unknown project, another tenant's or a malformed id is the 404 screen; an archived
 * project stays in the list while it is open. A page opened without a project goes to the one
 * remembered from the last visit (app/lib/documents/project-memory.server.ts), and an opened
 * project is remembered.
 */
export async function loadProjectChoice(api: ApiClient, request: Request, headers?: Headers): Promise<ProjectChoiceData> {
  const projectId = new URL(request.url).searchParams.get('projectId') || null
  const projectsCall = api.GET('/api/projects', { query: { status: 'active', limit: 100 } })
  if (projectId && !isUuid(projectId)) {
    throw loadError({ kind: 404, status: 404, data: null, problem: undefined, correlationId: undefined, message: 'Not found' }, headers)
  }
  const [projects, project] = await Promise.all([projectsCall, projectId ? api.GET('/api/projects/{id}', { path: { id: projectId } }) : null])
  if (project && !project.ok) throw loadError(project.error, headers)
  const options = projects.ok ? projects.data.items.map(optionOf) : []
  if (!projectId && headers) goToRememberedProject(request, headers, options)
  if (project?.ok && headers) rememberProject(request, headers, project.data.id)
  if (project?.ok && !options.some((p) => p.id === project.data.id)) options.push(optionOf(project.data))
  return { projects: options, projectId: project?.ok ? project.data.id : null, project: project?.ok ? project.data : null }
}

function optionOf(project: Project): ProjectOption {
  return { id: project.id, title: project.title, status: project.status }
}
