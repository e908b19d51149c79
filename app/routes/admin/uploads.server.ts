import { data, redirect } from 'react-router'
import { loadError } from '~/components/reporting/item-action'
import { noticeFailure } from '~/components/reporting/report-action'
import { uploadsHref, type UploadsQuery } from '~/lib/admin/uploads-query'
import type { ApiClient } from '~/lib/api/types'
import { setFlash } from '~/lib/flash.server'
import { isUuid } from '~/lib/schemas/uuid'

/** /admin/uploads: what it loads (the figures and a page of sessions), and its one action (abort). */

export async function loadUploadsPage(api: ApiClient, query: UploadsQuery, headers: Headers) {
  const params = new URLSearchParams()
  if (query.state) params.set('state', query.state)
  if (query.purpose) params.set('purpose', query.purpose)
  if (query.after) params.set('after', query.after)
  const [list, stats] = await Promise.all([api.GET('/api/admin/uploads', { query: params }), api.GET('/api/admin/uploads/stats')])
  // A stale cursor (400) starts again from the first page rather than failing the screen.
  if (!list.ok && list.error.status === 400 && query.after) throw redirect(uploadsHref({ ...query, after: null }), { headers })
  if (!list.ok) throw loadError(list.error, headers)
  return { uploads: list.data.items, nextCursor: list.data.nextCursor, stats: stats.ok ? stats.data : null }
}

/** "Abort upload", after its confirmation: the owner can send no more, the staged bytes are freed. */
export async function abortUpload(api: ApiClient, formData: FormData, query: UploadsQuery, headers: Headers) {
  const id = String(formData.get('uploadId') ?? '')
  const fileName = String(formData.get('fileName') ?? 'The upload')
  if (!isUuid(id)) throw data('Choose an upload.', { status: 400 })
  const result = await api.DELETE('/api/admin/uploads/{id}', { path: { id } })
  if (!result.ok) return noticeFailure('abort', result.error, headers, id)
  await setFlash(headers, { tone: 'success', message: `Upload “${fileName}” aborted. Its received bytes are freed; its owner can start again.` })
  throw redirect(uploadsHref(query), { headers })
}
