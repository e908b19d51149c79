import { parseWithZod } from '@conform-to/zod/v4'
import { data, redirect } from 'react-router'
import { allowedText, outcomeLabel } from '~/components/doc-control/workflow-badges'
import { loadError } from '~/components/reporting/item-action'
import { noticeOf, type ReportingActionData } from '~/components/reporting/report-action'
import type { ApiClient, ApiError, ApiResult } from '~/lib/api/types'
import { WORKFLOW_ACTIONS, type Workflow, type WorkflowAction } from '~/lib/doc-control/types'
import { setFlash } from '~/lib/flash.server'
import { failureStatus, replyWithApiError } from '~/lib/forms'
import { type Member, projectTitle } from '~/lib/reporting/types'
import { ApproveSchema, CancelSchema, CommentSchema, ReassignSchema, RejectFormSchema, ResubmitSchema } from '~/lib/schemas/workflows'
import { isUuid } from '~/lib/schemas/uuid'

/**
 * A review (/doc-control/workflows/{workflowId}): what its page loads, and the actions on it, one
 * function per intent. The inbox runs approve and reject through the same functions.
 */

export const workflowPath = (workflowId: string) => `/api/workflows/${encodeURIComponent(workflowId)}`
export const workflowPage = (workflowId: string, projectId?: string) =>
  `/doc-control/workflows/${encodeURIComponent(workflowId)}${projectId ? `?${new URLSearchParams({ projectId })}` : ''}`

/** A 409 names the actions the caller may take now: the page lists them. */
export type WorkflowActionData = ReportingActionData & { allowed?: WorkflowAction[] }

export type ResubmitDocument = { documentId: string; number: string; reviewed: string; choices: Array<{ id: string; code: string }>; suggested: string }

/**
 * The review, and what its forms need: the members to hand a task to (reassign), and each
 * document's revisions to resubmit with (resubmit), newest first with the current one suggested.
 * An unknown review, another organisation's or one the caller cannot see, is the 404 screen.
 */
export async function loadWorkflowPage(api: ApiClient, workflowId: string, headers: Headers) {
  if (!isUuid(workflowId)) throw data(null, { status: 404, statusText: 'Not found' })
  const found = await api.GET('/api/workflows/{workflowId}', { path: { workflowId } })
  if (!found.ok) throw loadError(found.error, headers)
  const workflow = found.data
  const can = new Set(workflow.allowedActions)
  const documentIds = [...new Set(workflow.revisions.map((r) => r.documentId))]
  const [project, members, documents] = await Promise.all([
    api.GET('/api/projects/{id}', { path: { id: workflow.projectId } }),
    can.has('reassign') ? api.GET('/api/members') : null,
    can.has('resubmit') ? Promise.all(documentIds.map((id) => api.GET('/api/documents/{id}', { path: { id } }))) : null,
  ])
  const resubmit: ResubmitDocument[] = (documents ?? []).flatMap((result) => {
    if (!result.ok) return []
    const doc = result.data
    const reviewed = workflow.revisions.find((r) => r.documentId === doc.id)
    return [
      {
        documentId: doc.id,
        number: doc.number,
        reviewed: reviewed?.code ?? '—',
        choices: doc.revisions.map((r) => ({ id: r.id, code: r.superseded ? `${r.code} (superseded)` : r.code })),
        suggested: doc.currentRevision?.id ?? reviewed?.revisionId ?? '',
      },
    ]
  })
  const failed = [members, ...(documents ?? [])].find((result) => result !== null && !result.ok)
  return {
    workflow,
    projectName: project.ok ? projectTitle(project.data.title) : 'Project',
    members: members?.ok ? members.data.items : [],
    resubmit,
    loadNotice: failed && !failed.ok ? noticeOf(failed.error) : null,
  }
}

function isAction(value: string): value is WorkflowAction {
  return (WORKFLOW_ACTIONS as readonly string[]).includes(value)
}

/** The intents a review's forms send; anything else is a 400. */
export function workflowIntent(formData: FormData): Exclude<WorkflowAction, 'start'> {
  const intent = String(formData.get('intent') ?? '')
  if (!isAction(intent) || intent === 'start') throw data('Unknown intent', { status: 400 })
  return intent
}

type Replyable = Parameters<typeof replyWithApiError>[0]

/**
 * An action's call failed. A wrong action for the review's state (409) or a refusal (403) is the
 * page's notice, naming what the caller may do now; field errors go next to their fields; the
 * input comes back every time. A review that vanished is the 404 screen on its own page, and a
 * notice in the inbox (`keepPage`).
 */
function actionFailure(intent: string, workflowId: string, submission: Replyable, error: ApiError, headers: Headers, keepPage: boolean) {
  if (error.status === 404 && !keepPage) throw loadError(error, headers)
  const init = { status: failureStatus(error), headers }
  const raw = error.problem?.allowed
  const allowed = Array.isArray(raw) ? raw.filter((a): a is WorkflowAction => typeof a === 'string' && isAction(a)) : undefined
  if (error.status === 409 || error.status === 403 || error.status === 404) {
    const notice = noticeOf(error)
    const message = allowed ? `${error.problem?.detail ?? notice.message} ${allowedText(allowed)}` : notice.message
    return data<WorkflowActionData>({ intent, targetId: workflowId, result: submission.reply(), notice: { ...notice, message }, allowed }, init)
  }
  return data<WorkflowActionData>({ intent, targetId: workflowId, result: replyWithApiError(submission, fieldErrorsOf(error)) }, init)
}

/** The backend names a list's entries `revisionIds.0`; the form shows them under `revisionIds`. */
function fieldErrorsOf(error: ApiError): ApiError {
  const errors = error.problem?.errors
  if (!errors) return error
  const merged: Record<string, string[]> = {}
  for (const [key, messages] of Object.entries(errors)) {
    const field = key.replace(/\.\d+$/, '')
    merged[field] = [...(merged[field] ?? []), ...messages]
  }
  return { ...error, problem: { ...error.problem, errors: merged } }
}

/** What the flash says once an action is done, from the review as it answers. */
function doneMessage(intent: WorkflowAction, workflow: Workflow, members: readonly Member[], formData: FormData): string {
  const step = workflow.currentStep !== null ? workflow.steps[workflow.currentStep] : undefined
  const next = step && workflow.currentStep !== null ? `Step ${workflow.currentStep + 1} (${step.name}) is under review.` : ''
  switch (intent) {
    case 'approve':
      if (workflow.status === 'approved')
        return `Review approved: ${outcomeLabel(workflow.outcome ?? 'approved', workflow.steps.at(-1)?.outcomes)}. Its revisions carry the outcome’s code.`
      return `Approved. ${next}`.trim()
    case 'reject':
      return workflow.status === 'returned' ? 'Sent back to the author for a new revision.' : `Sent back. ${next}`.trim()
    case 'comment':
      return 'Comment added.'
    case 'reassign': {
      const userId = String(formData.get('userId') ?? '')
      const name = members.find((m) => m.userId === userId)?.displayName
      return name ? `Task handed to ${name}.` : 'Task handed over.'
    }
    case 'cancel':
      return 'Review cancelled. Its revisions are free again.'
    case 'resubmit':
      return `Resubmitted: round ${workflow.round} starts at step 1.`
    default:
      return 'Done.'
  }
}

/**
 * One action on a review, then back to `back` with a flash saying what happened. `keepPage`: the
 * caller is a list (the inbox), where a review gone is a notice, not the 404 screen.
 */
export async function runWorkflowAction(
  api: ApiClient,
  intent: Exclude<WorkflowAction, 'start'>,
  workflowId: string,
  formData: FormData,
  headers: Headers,
  options: { back: string; keepPage?: boolean },
) {
  if (!isUuid(workflowId)) throw data('Choose a review.', { status: 400 })
  const keepPage = options.keepPage ?? false
  const invalid = (submission: Replyable) => data<WorkflowActionData>({ intent, targetId: workflowId, result: submission.reply() }, { status: 400 })
  let call: () => Promise<ApiResult<Workflow>>
  let submission: Replyable
  switch (intent) {
    case 'approve': {
      const parsed = parseWithZod(formData, { schema: ApproveSchema })
      if (parsed.status !== 'success') return invalid(parsed)
      submission = parsed
      call = () => api.POST('/api/workflows/{workflowId}/approve', { path: { workflowId }, body: parsed.value, idempotencyKey: true })
      break
    }
    case 'reject': {
      const parsed = parseWithZod(formData, { schema: RejectFormSchema })
      if (parsed.status !== 'success') return invalid(parsed)
      submission = parsed
      call = () => api.POST('/api/workflows/{workflowId}/reject', { path: { workflowId }, body: parsed.value, idempotencyKey: true })
      break
    }
    case 'comment': {
      const parsed = parseWithZod(formData, { schema: CommentSchema })
      if (parsed.status !== 'success') return invalid(parsed)
      submission = parsed
      call = () => api.POST('/api/workflows/{workflowId}/comment', { path: { workflowId }, body: parsed.value, idempotencyKey: true })
      break
    }
    case 'reassign': {
      const parsed = parseWithZod(formData, { schema: ReassignSchema })
      if (parsed.status !== 'success') return invalid(parsed)
      submission = parsed
      call = () => api.POST('/api/workflows/{workflowId}/reassign', { path: { workflowId }, body: parsed.value, idempotencyKey: true })
      break
    }
    case 'cancel': {
      const parsed = parseWithZod(formData, { schema: CancelSchema })
      if (parsed.status !== 'success') return invalid(parsed)
      submission = parsed
      call = () => api.POST('/api/workflows/{workflowId}/cancel', { path: { workflowId }, body: parsed.value, idempotencyKey: true })
      break
    }
    case 'resubmit': {
      const parsed = parseWithZod(formData, { schema: ResubmitSchema })
      if (parsed.status !== 'success') return invalid(parsed)
      submission = parsed
      call = () => api.POST('/api/workflows/{workflowId}/resubmit', { path: { workflowId }, body: parsed.value, idempotencyKey: true })
      break
    }
  }
  const [result, members] = await Promise.all([call(), intent === 'reassign' ? api.GET('/api/members') : null])
  if (!result.ok) return actionFailure(intent, workflowId, submission, result.error, headers, keepPage)
  await setFlash(headers, { tone: 'success', message: doneMessage(intent, result.data, members?.ok ? members.data.items : [], formData) })
  throw redirect(options.back, { headers })
}
