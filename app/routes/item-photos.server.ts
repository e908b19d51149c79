import { parseWithZod } from '@conform-to/zod/v4'
import { data, redirect } from 'react-router'
import { z } from 'zod'
import type { ItemPhoto } from '~/components/reporting/item-gallery'
import { conflictRevision, formFailure, noticeFailure, type ReportingActionData } from '~/components/reporting/report-action'
import type { ApiClient, ApiError } from '~/lib/api/types'
import { failureStatus, formMessageFor } from '~/lib/forms'
import { setFlash } from '~/lib/flash.server'
import { revisionFromForm } from '~/lib/schemas/edit-conflict'

export const PhotoCaptionSchema = z.object({
  photoId: z.string().min(1),
  caption: z.string().trim().max(500, 'A caption may be at most 500 characters.').optional(),
})

/** The order a move form or a drag sends: every photo id of the item, in the new order. */
export const PhotoOrderSchema = z.object({ order: z.array(z.string().min(1).max(64)).min(1).max(300) })

/**
 * The photos of a respond or close form: ids the upload island finished (`photoIds`), plus the
 * files of the plain input (no JavaScript), stored now in one request. The error goes back to the
 * form, so the user sees which file was refused and why.
 */
export async function photosOfForm(api: ApiClient, itemId: string, formData: FormData): Promise<{ ok: true; photoIds: string[] } | { ok: false; error: ApiError }> {
  const photoIds = formData.getAll('photoIds').filter((v): v is string => typeof v === 'string' && v !== '')
  const files = formData.getAll('photos').filter((v): v is File => typeof v !== 'string' && v.size > 0)
  if (files.length === 0) return { ok: true, photoIds }
  const body = new FormData()
  for (const file of files) body.append('photos', file, file.name)
  const result = await api.POST('/api/items/{itemId}/photos', { path: { itemId }, body })
  if (!result.ok) return { ok: false, error: result.error }
  return { ok: true, photoIds: [...photoIds, ...result.data.items.map((p) => p.id)] }
}

/** A refused photo (type, size, quota, a stale id) is about the whole form: its message on top. */
export function photoFormErrors(error: ApiError): string[] | undefined {
  const status = error.status ?? 0
  if (error.problem?.errors?.photoIds) return error.problem.errors.photoIds
  if (status === 413 || status === 415 || (status === 400 && error.problem?.errors?.file)) return [formMessageFor(error)]
  return undefined
}

export function photoFailure(intent: string, submission: { reply: (options?: { formErrors?: string[] }) => ReportingActionData['result'] }, error: ApiError, headers: Headers) {
  return data<ReportingActionData>({ intent, result: submission.reply({ formErrors: photoFormErrors(error) ?? [formMessageFor(error)] }) }, { status: failureStatus(error), headers })
}

export async function loadPhotos(api: ApiClient, itemId: string): Promise<ItemPhoto[]> {
  const result = await api.GET('/api/items/{itemId}/photos', { path: { itemId } })
  return result.ok ? result.data.items : []
}

async function done(headers: Headers, itemId: string, message: string): Promise<never> {
  await setFlash(headers, { tone: 'success', message })
  throw redirect(`/items/${itemId}`, { headers })
}

export async function captionPhoto(api: ApiClient, itemId: string, formData: FormData, headers: Headers) {
  const submission = parseWithZod(formData, { schema: PhotoCaptionSchema })
  const photoId = String(formData.get('photoId') ?? '')
  if (submission.status !== 'success') return data<ReportingActionData>({ intent: 'photo-caption', targetId: photoId, result: submission.reply() }, { status: 400 })
  // Saved against the photo as the page showed it: a caption saved by someone else since is a conflict, the typed one kept in its form.
  const expectedRevision = revisionFromForm(formData.get('expectedRevision'))
  const result = await api.PATCH('/api/photos/{photoId}', { path: { photoId: submission.value.photoId }, body: { caption: submission.value.caption ?? null, expectedRevision } })
  if (!result.ok) {
    if (conflictRevision(result.error) !== undefined) return formFailure('photo-caption', submission, result.error, headers, photoId)
    return noticeFailure('photo-caption', result.error, headers, photoId)
  }
  return done(headers, itemId, submission.value.caption ? 'Caption saved.' : 'Caption removed.')
}

/**
 * A new order of the item's photos, as the page showed them: the Move up / Move down forms (no
 * JavaScript) and a drag in the gallery both send the whole list as `order` ids, and the backend
 * applies it in one transaction. If the photos changed since the page was drawn (one added or
 * deleted), nothing moves and the page says so.
 */
export async function movePhoto(api: ApiClient, itemId: string, formData: FormData, headers: Headers) {
  const photoId = String(formData.get('photoId') ?? '')
  const parsed = PhotoOrderSchema.safeParse({ order: formData.getAll('order') })
  if (!parsed.success) throw data('The new order is missing', { status: 400 })
  const result = await api.PUT('/api/items/{itemId}/photos/order', { path: { itemId }, body: { photoIds: parsed.data.order } })
  if (!result.ok) {
    if (result.error.status === 409) {
      return data<ReportingActionData>(
        { intent: 'photo-move', targetId: photoId, notice: { message: 'The photos changed while you were moving them, so nothing moved. Here is the current order: try again.', correlationId: result.error.correlationId ?? null } },
        { status: 409, headers },
      )
    }
    return noticeFailure('photo-move', result.error, headers, photoId)
  }
  const direction = formData.get('direction')
  return done(headers, itemId, direction === 'up' ? 'Photo moved up.' : direction === 'down' ? 'Photo moved down.' : 'Photo order saved.')
}

export async function deletePhoto(api: ApiClient, itemId: string, formData: FormData, headers: Headers) {
  const photoId = String(formData.get('photoId') ?? '')
  const result = await api.DELETE('/api/photos/{photoId}', { path: { photoId } })
  if (!result.ok) return noticeFailure('photo-delete', result.error, headers, photoId)
  return done(headers, itemId, 'Photo deleted.')
}
