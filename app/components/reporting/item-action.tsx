import { data } from 'react-router'
import { conflictRevision, noticeOf, type ReportingActionData } from '~/components/reporting/report-action'
import { MESSAGES, screenMessageFor } from '~/lib/api/messages'
import type { ApiError, ApiResult } from '~/lib/api/types'
import { failureStatus, replyWithApiError } from '~/lib/forms'

type Replyable = Parameters<typeof replyWithApiError>[0]

/**
 * A loader's essential call failed: an unknown or other-tenant id is the 404 screen, anything
 * else the error screen with the catalogue's text and the correlation id.
 */
export function loaded<T>(result: ApiResult<T>, headers?: Headers): T {
  if (result.ok) return result.data
  throw loadError(result.error, headers)
}

export function loadError(error: ApiError, headers?: Headers) {
  if (error.status === 404) return data(null, { status: 404, statusText: MESSAGES.notFound, headers })
  const correlationId = error.correlationId ?? error.problem?.correlationId ?? null
  return data({ correlationId }, { status: failureStatus(error), statusText: screenMessageFor(error), headers })
}

/**
 * An item form's call failed. Refused (403) and conflicts (409: the item changed state, or its
 * report is archived) are about the page, so they become its banner; field errors go next to their
 * fields; the input comes back every time. A vanished item is the 404 screen.
 */
export function itemFormFailure(intent: string, submission: Replyable, error: ApiError, headers: Headers) {
  if (error.status === 404) throw loadError(error, headers)
  const init = { status: failureStatus(error), headers }
  if (error.status === 403 || error.status === 409) {
    return data<ReportingActionData>({ intent, result: submission.reply(), notice: noticeOf(error), revision: conflictRevision(error) }, init)
  }
  return data<ReportingActionData>({ intent, result: replyWithApiError(submission, error) }, init)
}

/** A call with nothing typed (delete) failed: the page's banner says why. */
export function itemNoticeFailure(intent: string, error: ApiError, headers: Headers) {
  if (error.status === 404) throw loadError(error, headers)
  return data<ReportingActionData>({ intent, notice: noticeOf(error) }, { status: failureStatus(error), headers })
}
