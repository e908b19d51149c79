import type { SubmissionResult } from '@conform-to/react'
import type { ApiError } from '~/lib/api/types'
import { screenMessageFor } from '~/lib/api/messages'

type Replyable = {
  reply: (options?: { formErrors?: string[]; fieldErrors?: Record<string, string[]>; hideFields?: string[] }) => SubmissionResult<string[]>
}

/**
 * Turns a failed backend call into the form's reply: the backend's field errors go next to their
 * fields, anything else becomes the form's error, and the user's input comes back (secrets aside).
 */
export function replyWithApiError(submission: Replyable, error: ApiError, hideFields: string[] = []): SubmissionResult<string[]> {
  const fieldErrors = error.problem?.errors ?? {}
  const hasFieldErrors = Object.keys(fieldErrors).length > 0
  return submission.reply({
    formErrors: hasFieldErrors ? [] : [formMessageFor(error)],
    fieldErrors,
    hideFields,
  })
}

/** Our backend's 4xx details are written for people; 5xx, network and parsing get the catalogue text. */
export function formMessageFor(error: ApiError): string {
  const status = error.status ?? 0
  if (status >= 400 && status < 500 && error.problem?.detail) return error.problem.detail
  return screenMessageFor(error)
}

/** HTTP status for an action's failure response: the backend's 4xx, else 400 for validation, 503 for outages. */
export function failureStatus(error: ApiError): number {
  const status = error.status ?? 503
  if (status >= 500) return 503
  return status
}
