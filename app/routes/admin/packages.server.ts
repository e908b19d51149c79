import { parseWithZod } from '@conform-to/zod/v4'
import { data, redirect } from 'react-router'
import { loadError } from '~/components/reporting/item-action'
import { conflictRevision, formFailure, invalidForm, noticeFailure, noticeOf, type ReportingActionData } from '~/components/reporting/report-action'
import { failureStatus } from '~/lib/forms'
import { revisionFromForm } from '~/lib/schemas/edit-conflict'
import { AddPackageFormSchema, RenamePackageFormSchema, TogglePackageFormSchema } from '~/lib/schemas/admin-packages'
import type { ApiClient } from '~/lib/api/types'
import { setFlash } from '~/lib/flash.server'
import { packagesHref, type PackagesQuery } from '~/lib/admin/packages-query'
import { isUuid } from '~/lib/schemas/uuid'

/** /admin/packages: what it loads, and its four forms (add, rename, activate/deactivate, a project's settings). */

/** The forms' replies; a project's settings refused as stale also carry what was chosen, kept in the selects. */
export type PackagesActionData = ReportingActionData & { chosen?: Record<string, string> | undefined }

/** The project picker offers the newest this many projects. */
const PICKER_PROJECTS = 100

/** The session's organisation: its id names the packages' path. */
async function organisationOf(api: ApiClient, headers: Headers): Promise<{ id: string; name: string }> {
  const session = await api.GET('/auth/session')
  if (!session.ok) throw loadError(session.error, headers)
  return { id: session.data.tenantId, name: session.data.tenantName }
}

export async function loadPackagesPage(api: ApiClient, query: PackagesQuery, headers: Headers) {
  const organisation = await organisationOf(api, headers)
  const [list, projects, settings] = await Promise.all([
    api.GET('/api/admin/organisations/{id}/packages', { path: { id: organisation.id } }),
    api.GET('/api/projects', { query: { status: 'all', limit: PICKER_PROJECTS } }),
    query.projectId ? api.GET('/api/admin/projects/{id}/packages', { path: { id: query.projectId } }) : null,
  ])
  if (!list.ok) throw loadError(list.error, headers)
  const packages = list.data.items
  return {
    organisationName: organisation.name,
    packages,
    renaming: query.rename ? (packages.find((p) => p.key === query.rename) ?? null) : null,
    projects: projects.ok ? projects.data.items.map(({ id, title, status }) => ({ id, title, status })) : [],
    project: query.projectId && projects.ok ? (projects.data.items.find((p) => p.id === query.projectId) ?? null) : null,
    // A project that is gone (or another organisation's) just shows no settings.
    projectSettings: settings?.ok ? settings.data.items : null,
    projectSettingsRevision: settings?.ok ? settings.data.revision : 0,
  }
}

/** "Add package": the whole list with the new one at the end (PUT), refused beside the key if it is taken. */
export async function addPackage(api: ApiClient, formData: FormData, query: PackagesQuery, headers: Headers) {
  const submission = parseWithZod(formData, { schema: AddPackageFormSchema })
  if (submission.status !== 'success') return invalidForm('add', submission)
  const organisation = await organisationOf(api, headers)
  const current = await api.GET('/api/admin/organisations/{id}/packages', { path: { id: organisation.id } })
  if (!current.ok) return formFailure('add', submission, current.error, headers)
  const { key, name, sortOrder } = submission.value
  if (current.data.items.some((p) => p.key === key)) {
    return data<ReportingActionData>(
      { intent: 'add', result: submission.reply({ fieldErrors: { key: [`There is already a package with the key “${key}”. Keys cannot be reused: pick another.`] } }) },
      { status: 422, headers },
    )
  }
  const order = sortOrder ?? Math.max(0, ...current.data.items.map((p) => p.sortOrder + 1))
  const items = [...current.data.items.map((p) => ({ key: p.key, name: p.name, active: p.active, sortOrder: p.sortOrder })), { key, name, active: true, sortOrder: order }]
  // The whole list as it was read just now: a save by someone else in between is refused rather than undone.
  const saved = await api.PUT('/api/admin/organisations/{id}/packages', { path: { id: organisation.id }, body: { items, expectedRevision: current.data.revision } })
  if (!saved.ok) {
    // Row errors of the new package (the last row) belong next to the add form's fields.
    const last = `items.${items.length - 1}.`
    const errors = Object.fromEntries(
      Object.entries(saved.error.problem?.errors ?? {}).map(([field, messages]) => [field.startsWith(last) ? field.slice(last.length) : field, messages]),
    )
    const error = saved.error.problem ? { ...saved.error, problem: { ...saved.error.problem, errors } } : saved.error
    return formFailure('add', submission, error, headers)
  }
  await setFlash(headers, { tone: 'success', message: `Package “${name}” added. It is active: new items can use it.` })
  throw redirect(packagesHref({ projectId: query.projectId }), { headers })
}

export async function renamePackage(api: ApiClient, formData: FormData, query: PackagesQuery, headers: Headers) {
  const submission = parseWithZod(formData, { schema: RenamePackageFormSchema })
  if (submission.status !== 'success') return invalidForm('rename', submission)
  const organisation = await organisationOf(api, headers)
  const { key, name } = submission.value
  // Saved against the list as the page showed it: a change by someone else since is a conflict, the typed name kept.
  const body = { name, expectedRevision: revisionFromForm(formData.get('expectedRevision')) }
  const saved = await api.PATCH('/api/admin/organisations/{id}/packages/{key}', { path: { id: organisation.id, key }, body })
  if (!saved.ok) {
    if (saved.error.status === 404) return noticeFailure('rename', saved.error, headers, key)
    return formFailure('rename', submission, saved.error, headers, key)
  }
  await setFlash(headers, { tone: 'success', message: `Package renamed to “${saved.data.name}”. Its items show the new name.` })
  throw redirect(packagesHref({ projectId: query.projectId }), { headers })
}

export async function togglePackage(api: ApiClient, formData: FormData, query: PackagesQuery, headers: Headers) {
  const submission = parseWithZod(formData, { schema: TogglePackageFormSchema })
  if (submission.status !== 'success') throw data('Choose a package.', { status: 400 })
  const organisation = await organisationOf(api, headers)
  const { key, active } = submission.value
  const body = { active: active === 'true', expectedRevision: revisionFromForm(formData.get('expectedRevision')) }
  const saved = await api.PATCH('/api/admin/organisations/{id}/packages/{key}', { path: { id: organisation.id, key }, body })
  if (!saved.ok) return noticeFailure('toggle', saved.error, headers, key)
  await setFlash(headers, {
    tone: 'success',
    message: saved.data.active
      ? `“${saved.data.name}” is active again: new items can use it.`
      : `“${saved.data.name}” deactivated. Its ${saved.data.itemCount} item(s) keep it; new items cannot choose it.`,
  })
  throw redirect(packagesHref({ projectId: query.projectId, rename: query.rename }), { headers })
}

/** A project's settings: one select per package (`pkg:{key}` = inherit | on | off). */
export async function saveProjectPackages(api: ApiClient, formData: FormData, headers: Headers) {
  const projectId = String(formData.get('projectId') ?? '')
  if (!isUuid(projectId)) throw data('Choose a project.', { status: 400 })
  const items: { packageKey: string; active: boolean | null }[] = []
  for (const [name, value] of formData.entries()) {
    if (!name.startsWith('pkg:')) continue
    const choice = String(value)
    if (choice !== 'inherit' && choice !== 'on' && choice !== 'off') throw data('Choose inherit, on or off.', { status: 400 })
    items.push({ packageKey: name.slice(4), active: choice === 'inherit' ? null : choice === 'on' })
  }
  // Saved against the settings as the page showed them: a save by someone else since is a conflict, the choices kept.
  const saved = await api.PUT('/api/projects/{id}/packages', { path: { id: projectId }, body: { items, expectedRevision: revisionFromForm(formData.get('expectedRevision')) } })
  if (!saved.ok) {
    if (saved.error.status === 404) throw loadError(saved.error, headers)
    const chosen = Object.fromEntries(items.map((item) => [item.packageKey, item.active === null ? 'inherit' : item.active ? 'on' : 'off']))
    const reply = { intent: 'project', targetId: projectId, notice: noticeOf(saved.error), revision: conflictRevision(saved.error), chosen }
    return data<PackagesActionData>(reply, { status: failureStatus(saved.error), headers })
  }
  await setFlash(headers, { tone: 'success', message: 'The project’s packages are saved. New items on it follow these settings.' })
  throw redirect(packagesHref({ projectId }), { headers })
}
