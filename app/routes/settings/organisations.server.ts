import { parseWithZod } from '@conform-to/zod/v4'
import { data, redirect } from 'react-router'
import type { ApiClient } from '~/lib/api/types'
import { setFlash } from '~/lib/flash.server'
import { failureStatus, formMessageFor, replyWithApiError } from '~/lib/forms'
import { SwitchFormSchema, TenantCreateSchema } from '~/lib/schemas/licensing'
import { idempotencyKeyOf } from '~/routes/admin/invites.server'
import type { UserActionData } from './user.server'

/** /settings/user "Your organisations" (issue 16, docs/licensing.md): the list, creating one, switching. */

export async function loadOrganisations(api: ApiClient) {
  const result = await api.GET('/api/tenants')
  // One form of a key per rendered page: the same form sent twice creates one organisation.
  return { organisations: result.ok ? result.data.items : [], organisationsFailed: !result.ok, organisationKey: crypto.randomUUID() }
}

export async function createOrganisation(api: ApiClient, formData: FormData, headers: Headers, back: string) {
  const submission = parseWithZod(formData, { schema: TenantCreateSchema })
  if (submission.status !== 'success') return data<UserActionData>({ intent: 'organisation-create', result: submission.reply() }, { status: 400 })
  const result = await api.POST('/api/tenants', { body: submission.value, idempotencyKey: idempotencyKeyOf(formData, submission.value) })
  if (!result.ok) {
    return data<UserActionData>({ intent: 'organisation-create', result: replyWithApiError(submission, result.error) }, { status: failureStatus(result.error), headers })
  }
  await setFlash(headers, { tone: 'success', message: `${result.data.name} is created and you are its administrator. Switch to it below to invite your people.` })
  throw redirect(back, { headers })
}

export async function switchOrganisation(api: ApiClient, formData: FormData, headers: Headers) {
  const submission = parseWithZod(formData, { schema: SwitchFormSchema })
  if (submission.status !== 'success') return data<UserActionData>({ intent: 'organisation-switch', notice: { message: 'Choose an organisation.', correlationId: null } }, { status: 400 })
  const result = await api.POST('/api/tenants/{tenantId}/switch', { path: { tenantId: submission.value.tenantId }, idempotencyKey: true })
  if (!result.ok) {
    const correlationId = result.error.correlationId ?? result.error.problem?.correlationId ?? null
    return data<UserActionData>({ intent: 'organisation-switch', notice: { message: formMessageFor(result.error), correlationId } }, { status: failureStatus(result.error), headers })
  }
  await setFlash(headers, { tone: 'success', message: `You are now working in ${result.data.tenantName}.` })
  throw redirect('/dashboard', { headers })
}
