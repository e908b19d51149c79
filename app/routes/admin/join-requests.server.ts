import { parseWithZod } from '@conform-to/zod/v4'
import { data, redirect } from 'react-router'
import { loadError } from '~/components/reporting/item-action'
import { formFailure, invalidForm, noticeFailure, type ReportingActionData } from '~/components/reporting/report-action'
import { joinRequestsApiQuery, joinRequestsHref, type JoinRequestsQuery, roleLabel } from '~/lib/admin/join-requests'
import { ApproveFormSchema, DeclineFormSchema } from '~/lib/schemas/admin-join-requests'
import type { ApiClient } from '~/lib/api/types'
import { setFlash } from '~/lib/flash.server'

/** /admin/join-requests: what it loads, and its two actions (approve with a role, decline with a reason). */

export async function loadJoinRequestsPage(api: ApiClient, query: JoinRequestsQuery, headers: Headers) {
  const page = await api.GET('/api/admin/join-requests', { query: joinRequestsApiQuery(query) })
  if (!page.ok) throw loadError(page.error, headers)
  return page.data
}

/**
 * A decision that comes too late (someone else decided, or the person withdrew: 409; the request
 * is gone: 404) is about the page, not the form: the banner says so and the list is reloaded.
 */
function lateOrFailed(intent: string, submission: Parameters<typeof formFailure>[1], error: Parameters<typeof formFailure>[2], headers: Headers, requestId: string) {
  if (error.status === 409 || error.status === 404) return noticeFailure(intent, error, headers, requestId)
  return formFailure(intent, submission, error, headers, requestId)
}

export async function approveJoinRequest(api: ApiClient, formData: FormData, query: JoinRequestsQuery, headers: Headers) {
  const requestId = String(formData.get('requestId') ?? '')
  const submission = parseWithZod(formData, { schema: ApproveFormSchema })
  if (submission.status !== 'success') return invalidForm('approve', submission, requestId)
  const result = await api.POST('/api/admin/join-requests/{id}/approve', { path: { id: submission.value.requestId }, body: { roleKey: submission.value.roleKey }, idempotencyKey: true })
  if (!result.ok) return lateOrFailed('approve', submission, result.error, headers, requestId)
  const approved = result.data
  await setFlash(headers, {
    tone: 'success',
    message: `${approved.requester.displayName} is now a member (${roleLabel(approved.roleKey)}). They have been told by e-mail.`,
  })
  throw redirect(joinRequestsHref(query), { headers })
}

export async function declineJoinRequest(api: ApiClient, formData: FormData, query: JoinRequestsQuery, headers: Headers) {
  const requestId = String(formData.get('requestId') ?? '')
  const submission = parseWithZod(formData, { schema: DeclineFormSchema })
  if (submission.status !== 'success') return invalidForm('decline', submission, requestId)
  const result = await api.POST('/api/admin/join-requests/{id}/decline', { path: { id: submission.value.requestId }, body: { reason: submission.value.reason }, idempotencyKey: true })
  if (!result.ok) return lateOrFailed('decline', submission, result.error, headers, requestId)
  await setFlash(headers, { tone: 'success', message: `Request from ${result.data.requester.displayName} declined. They have been told why by e-mail.` })
  throw redirect(joinRequestsHref(query), { headers })
}

export function unknownIntent() {
  return data<ReportingActionData>({ intent: 'unknown' }, { status: 400 })
}
