import { data } from 'react-router'
import type { ApiClient, ApiError } from '~/lib/api/types'
import type { PermissionLevel } from '~/lib/documents/types'

/**
 * Shared by the parties, matrix and deliverables screens (docs/doc-control.md "Screens"): the
 * caller's level at the project's top (so a screen only offers the forms a manager may use; the
 * backend decides anyway), the project an action is about, and the API's field names in conform's
 * spelling.
 */

export async function projectAccess(api: ApiClient, projectId: string): Promise<PermissionLevel> {
  const tree = await api.GET('/api/projects/{id}/documents/tree', { path: { id: projectId }, query: { depth: 1 } })
  return tree.ok ? tree.data.access : 'none'
}

/** An action works on the project of the address; without one there is nothing to change. */
export function requireProjectId(request: Request): string {
  const projectId = new URL(request.url).searchParams.get('projectId')
  if (!projectId) throw data('Choose a project first.', { status: 400 })
  return projectId
}

/** `milestones.0.plannedDate` (the API's error path) → `milestones[0].plannedDate` (conform's field name). */
export function conformErrors(error: ApiError): ApiError {
  const errors = error.problem?.errors
  if (!errors || !error.problem) return error
  const renamed = Object.fromEntries(Object.entries(errors).map(([key, messages]) => [key.replace(/\.(\d+)(?=\.|$)/g, '[$1]'), messages]))
  return { ...error, problem: { ...error.problem, errors: renamed } }
}
