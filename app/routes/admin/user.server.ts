import { parseWithZod } from '@conform-to/zod/v4'
import { data, redirect } from 'react-router'
import { loadError } from '~/components/reporting/item-action'
import { conflictRevision, invalidForm, noticeOf, type ReportingActionData } from '~/components/reporting/report-action'
import { revisionFromForm } from '~/lib/schemas/edit-conflict'
import type { ApiClient, ApiError } from '~/lib/api/types'
import { setFlash } from '~/lib/flash.server'
import { failureStatus, replyWithApiError } from '~/lib/forms'
import { RoleFormSchema, SetPasswordSchema, UserEditFormSchema, userEditBody } from '~/lib/schemas/admin-users'

export async function loadUserPage(api: ApiClient, userId: string, headers: Headers) {
  const result = await api.GET('/api/admin/users/{id}', { path: { id: userId } })
  if (!result.ok) throw loadError(result.error, headers)
  return { user: result.data }
}

type Replyable = Parameters<typeof invalidForm>[1]

/** A form's call failed: refusals and conflicts (the last administrator, yourself) are the page's banner; field errors go next to their fields. */
function failure(intent: string, error: ApiError, headers: Headers, submission?: Replyable, hideFields: string[] = []) {
  if (error.status === 404) throw loadError(error, headers)
  const init = { status: failureStatus(error), headers }
  if (!submission) return data<ReportingActionData>({ intent, notice: noticeOf(error) }, init)
  // A stale save (409 KR_EDIT_CONFLICT) keeps what was typed and saves against the person's revision now next time.
  if (error.status === 403 || error.status === 409) {
    return data<ReportingActionData>({ intent, result: submission.reply({ hideFields }), notice: noticeOf(error), revision: conflictRevision(error) }, init)
  }
  return data<ReportingActionData>({ intent, result: replyWithApiError(submission, error, hideFields) }, init)
}

async function done(headers: Headers, userId: string, message: string): Promise<never> {
  await setFlash(headers, { tone: 'success', message })
  throw redirect(`/admin/users/${encodeURIComponent(userId)}`, { headers })
}

export async function userAction(api: ApiClient, userId: string, formData: FormData, headers: Headers) {
  const intent = String(formData.get('intent') ?? '')
  const expectedRevision = revisionFromForm(formData.get('expectedRevision'))
  switch (intent) {
    case 'edit': {
      const submission = parseWithZod(formData, { schema: UserEditFormSchema })
      if (submission.status !== 'success') return invalidForm(intent, submission)
      // Saved against the person as the page showed them: a change by someone else since is a conflict, what was typed kept.
      const result = await api.PATCH('/api/admin/users/{id}', { path: { id: userId }, body: { ...userEditBody(submission.value), expectedRevision } })
      if (!result.ok) return failure(intent, result.error, headers, submission)
      return done(headers, userId, `${result.data.displayName}’s details saved.`)
    }
    case 'role': {
      const submission = parseWithZod(formData, { schema: RoleFormSchema })
      if (submission.status !== 'success') return invalidForm(intent, submission)
      const result = await api.PATCH('/api/admin/users/{id}', { path: { id: userId }, body: { roleKey: submission.value.roleKey, expectedRevision } })
      if (!result.ok) return failure(intent, result.error, headers, submission)
      return done(headers, userId, `${result.data.displayName}’s role changed.`)
    }
    case 'suspend': {
      const result = await api.DELETE('/api/admin/users/{id}', { path: { id: userId } })
      if (!result.ok) return failure(intent, result.error, headers)
      return done(headers, userId, `${result.data.displayName} is suspended and signed out of this organisation.`)
    }
    case 'reactivate': {
      const result = await api.PATCH('/api/admin/users/{id}', { path: { id: userId }, body: { status: 'Active', expectedRevision } })
      if (!result.ok) return failure(intent, result.error, headers)
      return done(headers, userId, `${result.data.displayName} is active again.`)
    }
    case 'reset-password': {
      const result = await api.POST('/api/admin/users/{id}/password', { path: { id: userId }, idempotencyKey: true })
      if (!result.ok) return failure(intent, result.error, headers)
      return done(headers, userId, `A link to choose a new password was mailed to ${result.data.email}.`)
    }
    case 'set-password': {
      const submission = parseWithZod(formData, { schema: SetPasswordSchema })
      if (submission.status !== 'success') return data<ReportingActionData>({ intent, result: submission.reply({ hideFields: ['password'] }) }, { status: 400 })
      const result = await api.POST('/api/admin/users/{id}/password/set', { path: { id: userId }, body: submission.value })
      if (!result.ok) return failure(intent, result.error, headers, submission, ['password'])
      return done(headers, userId, `${result.data.displayName}’s password is set. Their other sessions were signed out.`)
    }
    case 'hard-delete': {
      const result = await api.DELETE('/api/admin/users/{id}/hard', { path: { id: userId } })
      if (!result.ok) return failure(intent, result.error, headers)
      await setFlash(headers, {
        tone: 'success',
        message:
          result.data.outcome === 'anonymised'
            ? 'The person was removed and their account anonymised. What they made stays, shown as “Deleted user”.'
            : 'The person was removed from this organisation. Their account stays for their other organisations.',
      })
      throw redirect('/admin/users', { headers })
    }
    default:
      throw data('Unknown intent', { status: 400 })
  }
}
