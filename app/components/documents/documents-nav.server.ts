import type { ApiClient } from '~/lib/api/types'
import type { Project } from '~/lib/reporting/types'
import type { ProjectOption } from './project-picker'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** How many review tasks wait for me (the inbox's total of tasks); null when the call fails, so the link shows no number rather than a wrong one. */
export async function inboxTaskCount(api: ApiClient): Promise<number | null> {
  const tasks = await api.GET('/api/inbox', { query: { kind: 'tasks', pageSize: 1 } })
  return tasks.ok ? tasks.data.total : null
}

/**
 * What the Documents sub-navigation shows on the document-control screens: the projects to switch
 * between, the one in the address (an archived one stays in the list while it is open), and the
 * count of my review tasks. The screen itself decides whether the project can be opened.
 */
export async function loadDocumentsNav(api: ApiClient, request: Request): Promise<{ projects: ProjectOption[]; projectId: string | null; inboxCount: number | null }> {
  const wanted = new URL(request.url).searchParams.get('projectId') ?? ''
  const projectId = UUID.test(wanted) ? wanted : null
  const [projects, inboxCount] = await Promise.all([api.GET('/api/projects', { query: { status: 'active', limit: 100 } }), inboxTaskCount(api)])
  const options: ProjectOption[] = projects.ok ? projects.data.items.map(optionOf) : []
  if (projectId && !options.some((p) => p.id === projectId)) {
    const project = await api.GET('/api/projects/{id}', { path: { id: projectId } })
    if (project.ok) options.push(optionOf(project.data))
  }
  return { projects: options, projectId: projectId && options.some((p) => p.id === projectId) ? projectId : null, inboxCount }
}

function optionOf(project: Project): ProjectOption {
  return { id: project.id, title: project.title, status: project.status }
}
