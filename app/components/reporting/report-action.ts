import type { SubmissionResult } from '@conform-to/react'
import { data } from 'react-router'
import type { ApiError } from '~/lib/api/types'
import { ERROR_CODES } from '~/lib/constants'
import { failureStatus, formMessageFor, replyWithApiError } from '~/lib/forms'

/**
 * What the reporting screens' actions answer when something fails. Each screen has several forms
 * (a hidden `intent` tells them apart), so the answer says which form it belongs to, and for a
 * form of one row, which row.
 */
export type Notice = { message: string; correlationId: string | null }

export type ReportingActionData = {
  intent: string
  /** The project or report a per-row form was about. */
  targetId?: string | undefined
  /** conform's reply for the form: errors next to their fields, the input kept. */
  result?: SubmissionResult<string[]> | undefined
  /** A failure that is about the page rather than a field (refused, conflict, outage), as a Banner. */
  notice?: Notice | undefined
  /** After a stale save (409 KR_EDIT_CONFLICT): the record's revision now, for the form's next save. */
  revision?: number | undefined
}

type Replyable = Parameters<typeof replyWithApiError>[0]

export function noticeOf(error: ApiError): Notice {
  return { message: formMessageFor(error), correlationId: error.correlationId ?? error.problem?.correlationId ?? null }
}

/** The browser's checks failed on the server too (no JavaScript, or a tampered form). */
export function invalidForm(intent: string, submission: Replyable, targetId?: string) {
  return data<ReportingActionData>({ intent, targetId, result: submission.reply() }, { status: 400 })
}

/**
 * A form's call failed. A 403 (the role changed since the page was drawn) becomes the page's
 * banner; field errors go next to their fields; anything else is the form's error. The input
 * comes back every time.
 */
export function formFailure(intent: string, submission: Replyable, error: ApiError, headers: Headers, targetId?: string) {
  const init = { status: failureStatus(error), headers }
  if (error.status === 403) return data<ReportingActionData>({ intent, targetId, result: submission.reply(), notice: noticeOf(error) }, init)
  return data<ReportingActionData>({ intent, targetId, result: replyWithApiError(submission, error), revision: conflictRevision(error) }, init)
}

/** The current revision a 409 KR_EDIT_CONFLICT carries: the kept form saves against it next time. */
export function conflictRevision(error: ApiError): number | undefined {
  const problem = error.problem as { code?: string; currentRevision?: unknown } | undefined
  if (error.status !== 409 || problem?.code !== ERROR_CODES.editConflict) return undefined
  return typeof problem.currentRevision === 'number' ? problem.currentRevision : undefined
}

/** The revision a form of `targetId` saves against: the conflict's, else the loaded record's. */
export function revisionFor(actionData: ReportingActionData | undefined, intent: string, targetId: string | undefined, loaded: number): number {
  if (actionData?.intent === intent && actionData.targetId === targetId && actionData.revision !== undefined) return actionData.revision
  return loaded
}

/** A call with nothing to type (archive, unarchive) failed: the page's banner says why. */
export function noticeFailure(intent: string, error: ApiError, headers: Headers, targetId?: string) {
  return data<ReportingActionData>({ intent, targetId, notice: noticeOf(error) }, { status: failureStatus(error), headers })
}

/** The reply of one form, if the last submission was that form (and that row). */
export function resultFor(actionData: ReportingActionData | undefined, intent: string, targetId?: string) {
  if (!actionData || actionData.intent !== intent) return undefined
  if (targetId !== undefined && actionData.targetId !== targetId) return undefined
  return actionData.result
}

/**
 * The first field, in the form's order, that came back with an error. Rendered as `autoFocus` so
 * that without JavaScript the reloaded page opens at the error, not at its top; with JavaScript
 * conform moves the focus itself.
 */
export function firstInvalidField(result: SubmissionResult<string[]> | undefined, names: readonly string[]): string | undefined {
  const errors = result?.error
  if (!errors) return undefined
  return names.find((name) => (errors[name]?.length ?? 0) > 0)
}
