import { parseWithZod } from '@conform-to/zod/v4'
import { data, redirect } from 'react-router'
import { noticeOf, type ReportingActionData } from '~/components/reporting/report-action'
import type { ApiClient, ApiError } from '~/lib/api/types'
import { atLeast } from '~/lib/documents/rules'
import type { DocumentDetail } from '~/lib/documents/types'
import type { DocumentReviews } from '~/components/doc-control/workflow-start-form'
import { REVIEW_TEMPLATE_PARAM } from '~/lib/doc-control/review-params'
import { setFlash } from '~/lib/flash.server'
import { failureStatus, formMessageFor } from '~/lib/forms'
import { StartReviewFormSchema } from '~/lib/schemas/workflow-forms'
import { workflowPage } from './workflow.server'
import { isUuid } from '~/lib/schemas/uuid'
import { MAILS_QUEUED, mailSetUp } from '~/lib/mail-status.server'

/**
 * A document's reviews on its page (/documents/{documentId}, "Reviews"): its history of reviews,
 * and "Start review". Starting is two steps so it works without JavaScript: choosing a template
 * (a GET, `?reviewTemplate=` in the address) brings the reviewers proposed for each of its steps
 * from the template's rules and the project's responsibility matrix; the second form starts it.
 */

/** May the caller start a review of this document: edit on it, a revision to review, not archived. */
export function canStartReview(doc: DocumentDetail): boolean {
  return doc.state !== 'Archived' && atLeast(doc.access, 'edit') && doc.revisions.length > 0
}

export async function loadDocumentReviews(api: ApiClient, doc: DocumentDetail, url: URL): Promise<DocumentReviews> {
  const start = canStartReview(doc)
  const wanted = url.searchParams.get(REVIEW_TEMPLATE_PARAM)
  const templateId = start && wanted && isUuid(wanted) ? wanted : null
  const revisionId = doc.currentRevision?.id ?? doc.revisions[0]?.id ?? null
  const [reviews, templates, template, proposal, members] = await Promise.all([
    api.GET('/api/documents/{documentId}/workflows', { path: { documentId: doc.id } }),
    start ? api.GET('/api/workflow-templates') : null,
    templateId ? api.GET('/api/workflow-templates/{templateId}', { path: { templateId } }) : null,
    templateId && revisionId
      ? api.GET('/api/projects/{projectId}/workflows/proposal', { path: { projectId: doc.projectId }, query: new URLSearchParams({ templateId, revisionIds: revisionId }) })
      : null,
    templateId ? api.GET('/api/members') : null,
  ])
  const problemOf = (result: { ok: false; error: ApiError } | null) => (result ? formMessageFor(result.error) : null)
  const failed = [reviews, templates].find((result) => result !== null && !result.ok)
  return {
    reviews: reviews.ok ? reviews.data.items : [],
    start:
      start && templates?.ok
        ? {
            templates: templates.data.items.filter((t) => !t.archived).map((t) => ({ id: t.id, name: t.name, version: t.version })),
            chosen: template?.ok && proposal?.ok ? { template: template.data, proposal: proposal.data } : null,
            members: members?.ok ? members.data.items : [],
            problem: template && !template.ok ? problemOf(template) : proposal && !proposal.ok ? problemOf(proposal) : null,
          }
        : null,
    notice: failed && !failed.ok ? noticeOf(failed.error) : null,
  }
}

/** The API names a step's people `reviewers.{step}` and the revisions `revisionIds`: the form's names are `steps[{step}].reviewers` and `revisionId`. */
function startFieldErrors(error: ApiError): Record<string, string[]> {
  const fieldErrors: Record<string, string[]> = {}
  for (const [key, messages] of Object.entries(error.problem?.errors ?? {})) {
    const step = /^reviewers\.(\d+)/.exec(key)
    const field = step ? `steps[${step[1]}].reviewers` : key.startsWith('revisionIds') ? 'revisionId' : key
    fieldErrors[field] = [...(fieldErrors[field] ?? []), ...messages]
  }
  return fieldErrors
}

/** "Start review": the chosen template on one revision, with the people chosen per step; then the review's page. */
export async function startReview(api: ApiClient, doc: DocumentDetail, formData: FormData, headers: Headers) {
  const submission = parseWithZod(formData, { schema: StartReviewFormSchema })
  if (submission.status !== 'success') return data<ReportingActionData>({ intent: 'start-review', result: submission.reply() }, { status: 400 })
  const { templateId, revisionId, message, dueDate, steps } = submission.value
  const reviewers = Object.fromEntries(steps.map((step, index) => [String(index), step.reviewers]))
  const result = await api.POST('/api/projects/{projectId}/workflows', { path: { projectId: doc.projectId }, body: { templateId, revisionIds: [revisionId], message, dueDate, reviewers }, idempotencyKey: true })
  if (!result.ok) {
    const fieldErrors = startFieldErrors(result.error)
    const hasFields = Object.keys(fieldErrors).length > 0
    // Refused (403) or in the way of another review (409): about the page, not a field.
    const notice = !hasFields && (result.error.status === 403 || result.error.status === 409) ? noticeOf(result.error) : undefined
    return data<ReportingActionData>(
      { intent: 'start-review', notice, result: submission.reply({ formErrors: hasFields || notice ? [] : [formMessageFor(result.error)], fieldErrors }) },
      { status: failureStatus(result.error), headers },
    )
  }
  const code = doc.revisions.find((r) => r.id === revisionId)?.code ?? ''
  const told = (await mailSetUp(api)) ? 'Its reviewers find it in their review inbox, and are e-mailed unless they turned that off.' : `Its reviewers find it in their review inbox; ${MAILS_QUEUED}.`
  await setFlash(headers, { tone: 'success', message: `Review of ${doc.number} ${code} started. ${told}` })
  throw redirect(workflowPage(result.data.id, doc.projectId), { headers })
}
