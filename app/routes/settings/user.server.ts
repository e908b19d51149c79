import type { SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { data, redirect } from 'react-router'
import { loadError } from '~/components/reporting/item-action'
import type { ApiClient } from '~/lib/api/types'
import { setFlash } from '~/lib/flash.server'
import { failureStatus, formMessageFor, replyWithApiError } from '~/lib/forms'
import { PasswordSetSchema } from '~/lib/schemas/auth'
import { EmailChangeSchema, MfaCodeSchema, ProfileSchema } from '~/lib/schemas/settings'
import type { MfaEnrollment } from '~/lib/settings/settings'
import { withQrCode } from '~/lib/qr.server'

/**
 * /settings and /settings/user (issue 14, docs/settings.md): what the page loads, and one small
 * function per form (intent). Success redirects back with a flash; failure keeps what was typed.
 */

export type UserActionData = {
  intent: string
  result?: SubmissionResult<string[]>
  /** An authenticator set-up in progress: shown until it is confirmed. */
  enrollment?: MfaEnrollment & { qrSvg: string }
  /** A failure that belongs to no field (a session that could not be signed out, …). */
  notice?: { message: string; correlationId: string | null }
}

export async function loadUserSettings(api: ApiClient, headers: Headers) {
  const [overview, sessions] = await Promise.all([api.GET('/api/settings'), api.GET('/api/settings/sessions')])
  if (!overview.ok) throw loadError(overview.error, headers)
  return { user: overview.data.user, sessions: sessions.ok ? sessions.data.items : [], sessionsFailed: !sessions.ok }
}

async function done(headers: Headers, back: string, message: string): Promise<never> {
  await setFlash(headers, { tone: 'success', message })
  throw redirect(back, { headers })
}

export async function saveProfile(api: ApiClient, formData: FormData, headers: Headers, back: string) {
  const submission = parseWithZod(formData, { schema: ProfileSchema })
  if (submission.status !== 'success') return data<UserActionData>({ intent: 'profile', result: submission.reply() }, { status: 400 })
  const v = submission.value
  // Every field is on the form: an emptied one is cleared.
  const result = await api.PATCH('/api/settings/user', { body: { displayName: v.displayName, firstName: v.firstName ?? null, lastName: v.lastName ?? null, position: v.position ?? null } })
  if (!result.ok) return data<UserActionData>({ intent: 'profile', result: replyWithApiError(submission, result.error) }, { status: failureStatus(result.error), headers })
  return done(headers, back, 'Your details are saved.')
}

export async function changeEmail(api: ApiClient, formData: FormData, headers: Headers, back: string) {
  const submission = parseWithZod(formData, { schema: EmailChangeSchema })
  if (submission.status !== 'success') return data<UserActionData>({ intent: 'email', result: submission.reply({ hideFields: ['currentPassword'] }) }, { status: 400 })
  const result = await api.POST('/api/settings/user/email', { body: submission.value })
  if (!result.ok) {
    return data<UserActionData>({ intent: 'email', result: replyWithApiError(submission, result.error, ['currentPassword']) }, { status: failureStatus(result.error), headers })
  }
  return done(headers, back, `We sent a link to ${result.data.newEmail}. Follow it to finish changing your e-mail address.`)
}

export async function changePassword(api: ApiClient, formData: FormData, headers: Headers, back: string) {
  const submission = parseWithZod(formData, { schema: PasswordSetSchema })
  const hidden = ['currentPassword', 'newPassword']
  if (submission.status !== 'success') return data<UserActionData>({ intent: 'password', result: submission.reply({ hideFields: hidden }) }, { status: 400 })
  const result = await api.POST('/auth/password/set', { body: submission.value })
  if (!result.ok) return data<UserActionData>({ intent: 'password', result: replyWithApiError(submission, result.error, hidden) }, { status: failureStatus(result.error), headers })
  return done(headers, back, 'Your password has been changed. Your other sessions were signed out.')
}

/** Starts (or continues) an authenticator set-up: the secret is shown on the page that answers, never stored in the URL. */
export async function startMfa(api: ApiClient, headers: Headers) {
  const result = await api.POST('/api/settings/user/mfa/enrollment')
  if (!result.ok) return data<UserActionData>({ intent: 'mfa-start', notice: noticeOf(result.error) }, { status: failureStatus(result.error), headers })
  return data<UserActionData>({ intent: 'mfa-start', enrollment: withQrCode(result.data) }, { headers })
}

export async function confirmMfa(api: ApiClient, formData: FormData, headers: Headers, back: string) {
  const submission = parseWithZod(formData, { schema: MfaCodeSchema })
  if (submission.status === 'success') {
    const result = await api.POST('/api/settings/user/mfa/confirm', { body: submission.value })
    if (result.ok) return done(headers, back, 'Two-factor authentication is on. Signing in now asks for a code from your app.')
    const again = await api.POST('/api/settings/user/mfa/enrollment')
    return data<UserActionData>(
      { intent: 'mfa-confirm', result: replyWithApiError(submission, result.error), ...(again.ok && { enrollment: withQrCode(again.data) }) },
      { status: failureStatus(result.error), headers },
    )
  }
  // Keep showing the secret while the code is corrected.
  const again = await api.POST('/api/settings/user/mfa/enrollment')
  return data<UserActionData>({ intent: 'mfa-confirm', result: submission.reply(), ...(again.ok && { enrollment: withQrCode(again.data) }) }, { status: 400, headers })
}

export async function cancelMfa(api: ApiClient, headers: Headers, back: string) {
  const result = await api.DELETE('/api/settings/user/mfa/enrollment')
  if (!result.ok) return data<UserActionData>({ intent: 'mfa-cancel', notice: noticeOf(result.error) }, { status: failureStatus(result.error), headers })
  return done(headers, back, 'The set-up was cancelled. Remove Site Portal from your authenticator app if you added it.')
}

export async function removeMfa(api: ApiClient, formData: FormData, headers: Headers, back: string) {
  const submission = parseWithZod(formData, { schema: MfaCodeSchema })
  if (submission.status !== 'success') return data<UserActionData>({ intent: 'mfa-remove', result: submission.reply() }, { status: 400 })
  const result = await api.DELETE('/api/settings/user/mfa', { body: submission.value })
  if (!result.ok) return data<UserActionData>({ intent: 'mfa-remove', result: replyWithApiError(submission, result.error) }, { status: failureStatus(result.error), headers })
  return done(headers, back, 'Two-factor authentication is off. Signing in asks only for your password now.')
}

export async function signOutOthers(api: ApiClient, headers: Headers, back: string) {
  const result = await api.POST('/api/settings/sessions/revoke-others')
  if (!result.ok) return data<UserActionData>({ intent: 'sessions-revoke-others', notice: noticeOf(result.error) }, { status: failureStatus(result.error), headers })
  const n = result.data.revoked
  return done(headers, back, n === 0 ? 'There were no other sessions to sign out.' : `Signed out ${n} other session${n === 1 ? '' : 's'}.`)
}

export async function signOutSession(api: ApiClient, formData: FormData, headers: Headers, back: string) {
  const id = String(formData.get('sessionId') ?? '')
  if (!/^[0-9a-f-]{36}$/i.test(id)) return data<UserActionData>({ intent: 'session-revoke', notice: { message: 'Choose a session.', correlationId: null } }, { status: 400 })
  const result = await api.DELETE('/api/settings/sessions/{id}', { path: { id } })
  if (!result.ok) return data<UserActionData>({ intent: 'session-revoke', notice: noticeOf(result.error) }, { status: failureStatus(result.error), headers })
  return done(headers, back, 'That session is signed out.')
}

function noticeOf(error: Parameters<typeof formMessageFor>[0]) {
  return { message: formMessageFor(error), correlationId: error.correlationId ?? error.problem?.correlationId ?? null }
}

export function unknownIntent() {
  return data<UserActionData>({ intent: 'unknown', notice: { message: 'That form is not known here. Reload the page and try again.', correlationId: null } }, { status: 400 })
}
