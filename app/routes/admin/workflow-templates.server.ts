import { parseWithZod } from '@conform-to/zod/v4'
import { data, redirect } from 'react-router'
import type { PartyChoices } from '~/components/doc-control/template-form'
import { type TemplatesQuery, templatesHref } from '~/components/doc-control/template-query'
import { loadError } from '~/components/reporting/item-action'
import { conflictRevision, noticeFailure, noticeOf, type ReportingActionData } from '~/components/reporting/report-action'
import type { RequestBody } from '~/lib/api/typed'
import type { ApiClient, ApiError } from '~/lib/api/types'
import { setFlash } from '~/lib/flash.server'
import { failureStatus, formMessageFor } from '~/lib/forms'
import { revisionFromForm } from '~/lib/schemas/edit-conflict'
import { projectTitle } from '~/lib/reporting/types'
import { templateBodyOf, templateFieldOf, TemplateFormSchema } from '~/lib/schemas/workflow-forms'
import { isUuid } from '~/lib/schemas/uuid'

/** /admin/workflow-templates: what it loads, and its two actions (save a template, archive one). */
/** Parties come per project: those of this many active projects are offered as reviewers. */
const PARTY_PROJECTS_MAX = 25

/**
 * The templates (archived ones too when asked), and with the editor open the template edited, the
 * members and the parties its steps can name. An unknown template to edit is the 404 screen.
 */
export async function loadTemplatesPage(api: ApiClient, query: TemplatesQuery, headers: Headers) {
  const formOpen = query.creating || query.editing !== null
  const [list, editing, members, partyChoices] = await Promise.all([
    api.GET('/api/workflow-templates', { query: { includeArchived: query.archived ? 'true' : undefined } }),
    query.editing ? api.GET('/api/workflow-templates/{templateId}', { path: { templateId: query.editing } }) : null,
    formOpen ? api.GET('/api/members') : null,
    formOpen ? loadPartyChoices(api) : null,
  ])
  if (!list.ok) throw loadError(list.error, headers)
  if (editing && !editing.ok) throw loadError(editing.error, headers)
  return {
    templates: list.data.items,
    editing: editing?.ok ? editing.data : null,
    members: members?.ok ? members.data.items : [],
    parties: partyChoices ?? [],
    notice: members && !members.ok ? noticeOf(members.error) : null,
  }
}

async function loadPartyChoices(api: ApiClient): Promise<PartyChoices> {
  const projects = await api.GET('/api/projects', { query: { status: 'active', limit: PARTY_PROJECTS_MAX } })
  if (!projects.ok) return []
  const lists = await Promise.all(projects.data.items.map((project) => api.GET('/api/projects/{id}/parties', { path: { id: project.id } })))
  return projects.data.items.flatMap((project, index) => {
    const list = lists[index]
    if (!list?.ok || list.data.items.length === 0) return []
    return [
      { projectName: projectTitle(project.title), parties: list.data.items.map((party) => ({ id: party.id, name: party.code ? `${party.name} (${party.code})` : party.name })) },
    ]
  })
}

/**
 * "Create template" or "Save as version n+1". "Add step" and "Remove step" without JavaScript come
 * here as conform's list intents: the answer is the form with the step added or removed and what
 * was typed kept. What the API refuses comes back next to its field.
 */
export async function saveTemplate(api: ApiClient, formData: FormData, query: TemplatesQuery, headers: Headers) {
  const submission = parseWithZod(formData, { schema: TemplateFormSchema })
  if (submission.status === undefined) return data<ReportingActionData>({ intent: 'save', result: submission.reply() })
  if (submission.status !== 'success') return data<ReportingActionData>({ intent: 'save', result: submission.reply() }, { status: 400 })
  // The form's roles come from its enum (REVIEWER_ROLES); the shared ReviewerRule type names any role key.
  const body = templateBodyOf(submission.value) as RequestBody<'/api/workflow-templates', 'post'>
  const templateId = query.editing
  // A change is saved against the version the form was opened on: a version written by someone else since is a conflict, what was typed kept.
  const expectedRevision = revisionFromForm(formData.get('expectedRevision'))
  const result = templateId
    ? await api.PUT('/api/workflow-templates/{templateId}', { path: { templateId }, body: { ...body, expectedRevision } })
    : await api.POST('/api/workflow-templates', { body, idempotencyKey: true })
  if (!result.ok) {
    if (result.error.status === 404) throw loadError(result.error, headers)
    const fieldErrors = templateFieldErrors(result.error, submission.value)
    const hasFields = Object.keys(fieldErrors).length > 0
    const notice = result.error.status === 403 || (result.error.status === 409 && !hasFields) ? noticeOf(result.error) : undefined
    return data<ReportingActionData>(
      { intent: 'save', notice, result: submission.reply({ formErrors: hasFields || notice ? [] : [formMessageFor(result.error)], fieldErrors }), revision: conflictRevision(result.error) },
      { status: failureStatus(result.error), headers },
    )
  }
  const saved = result.data
  await setFlash(headers, {
    tone: 'success',
    message: templateId ? `“${saved.name}” saved as version ${saved.version}. Running reviews keep the version they started with.` : `Template “${saved.name}” created.`,
  })
  throw redirect(templatesHref({ archived: query.archived }), { headers })
}

/** The backend's field errors (`steps.0.outcomes.1.status`) under the form's names (`steps[0].outcomes[2].status`). */
function templateFieldErrors(error: ApiError, form: Parameters<typeof templateFieldOf>[1]): Record<string, string[]> {
  const fieldErrors: Record<string, string[]> = {}
  for (const [key, messages] of Object.entries(error.problem?.errors ?? {})) {
    const field = templateFieldOf(key.split('.'), form)
    fieldErrors[field] = [...(fieldErrors[field] ?? []), ...messages]
  }
  return fieldErrors
}

export async function archiveTemplate(api: ApiClient, formData: FormData, query: TemplatesQuery, headers: Headers) {
  const templateId = String(formData.get('templateId') ?? '')
  if (!isUuid(templateId)) throw data('Choose a template.', { status: 400 })
  const result = await api.POST('/api/workflow-templates/{templateId}/archive', { path: { templateId }, idempotencyKey: true })
  if (!result.ok) {
    if (result.error.status === 404) throw loadError(result.error, headers)
    return noticeFailure('archive', result.error, headers, templateId)
  }
  await setFlash(headers, { tone: 'success', message: `“${result.data.name}” archived. It starts no new reviews; running ones carry on.` })
  throw redirect(templatesHref({ archived: query.archived }), { headers })
}
