import { parseWithZod } from '@conform-to/zod/v4'
import { data, redirect } from 'react-router'
import { transmittalPage, wizardPage } from '~/components/doc-control/transmittal-paths'
import { isUuid } from '~/lib/schemas/uuid'
import { loadError } from '~/components/reporting/item-action'
import { formFailure, invalidForm, noticeFailure } from '~/components/reporting/report-action'
import type { ApiClient } from '~/lib/api/types'
import type { Transmittal } from '~/lib/doc-control/types'
import { setFlash } from '~/lib/flash.server'
import { TransmittalRespondSchema } from '~/lib/schemas/transmittals'

/** One transmittal (/doc-control/transmittals/{id}): what it loads, and its actions, one function per intent. */

/** The transmittal; a draft continues in the wizard. A recipient's first load records "opened" (the API does). */
export async function loadTransmittal(api: ApiClient, transmittalId: string, headers: Headers): Promise<Transmittal> {
  if (!isUuid(transmittalId)) throw loadError({ kind: 404, status: 404, data: null, problem: undefined, correlationId: undefined, message: 'Not found' }, headers)
  const found = await api.GET('/api/transmittals/{transmittalId}', { path: { transmittalId } })
  if (!found.ok) throw loadError(found.error, headers)
  if (found.data.status === 'draft') throw redirect(wizardPage(found.data.projectId, { transmittalId: found.data.id }), { headers })
  return found.data
}

const pageOf = (t: Transmittal) => transmittalPage(t.id, t.projectId)

export async function acknowledge(api: ApiClient, t: Transmittal, headers: Headers) {
  const result = await api.POST('/api/transmittals/{transmittalId}/acknowledge', { path: { transmittalId: t.id }, idempotencyKey: true })
  if (!result.ok) return noticeFailure('acknowledge', result.error, headers)
  await setFlash(headers, { tone: 'success', message: `You acknowledged ${t.number}.` })
  throw redirect(pageOf(t), { headers })
}

export async function respond(api: ApiClient, t: Transmittal, formData: FormData, headers: Headers) {
  const submission = parseWithZod(formData, { schema: TransmittalRespondSchema })
  if (submission.status !== 'success') return invalidForm('respond', submission)
  const result = await api.POST('/api/transmittals/{transmittalId}/respond', { path: { transmittalId: t.id }, body: { response: submission.value.response }, idempotencyKey: true })
  if (!result.ok) return formFailure('respond', submission, result.error, headers)
  await setFlash(headers, { tone: 'success', message: `Your response to ${t.number} was sent.` })
  throw redirect(pageOf(t), { headers })
}

export async function close(api: ApiClient, t: Transmittal, headers: Headers) {
  const result = await api.POST('/api/transmittals/{transmittalId}/close', { path: { transmittalId: t.id }, idempotencyKey: true })
  if (!result.ok) return noticeFailure('close', result.error, headers)
  await setFlash(headers, { tone: 'success', message: `${t.number} closed.` })
  throw redirect(pageOf(t), { headers })
}

/** "Prepare ZIP": starts the job (202), or answers the one already ready or running; the page then shows its progress. */
export async function preparePackage(api: ApiClient, t: Transmittal, headers: Headers) {
  const result = await api.POST('/api/transmittals/{transmittalId}/package', { path: { transmittalId: t.id }, idempotencyKey: true })
  if (!result.ok) return noticeFailure('package', result.error, headers)
  await setFlash(headers, { tone: 'success', message: result.data.status === 'ready' ? 'The ZIP is ready.' : 'The ZIP is being prepared.' })
  throw redirect(pageOf(t), { headers })
}

/** "Revoke link…" (after its confirmation): an outside contact's link stops working. */
export async function revokeLink(api: ApiClient, t: Transmittal, formData: FormData, headers: Headers) {
  const linkId = String(formData.get('linkId') ?? '')
  const contact = t.outsideRecipients.find((r) => r.id === linkId)
  if (!contact) throw data('Unknown link', { status: 400 })
  const result = await api.POST('/api/transmittals/{transmittalId}/links/{linkId}/revoke', { path: { transmittalId: t.id, linkId }, idempotencyKey: true })
  if (!result.ok) return noticeFailure('revoke-link', result.error, headers)
  await setFlash(headers, { tone: 'success', message: `${contact.name}’s link no longer works.` })
  throw redirect(pageOf(t), { headers })
}

export function unknownIntent(): never {
  throw data('Unknown intent', { status: 400 })
}
