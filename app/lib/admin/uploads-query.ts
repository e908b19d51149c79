import { type AdminUploadPurpose, type AdminUploadState, UPLOAD_PURPOSES, UPLOAD_STATES } from './uploads'

/** /admin/uploads's URL: its filters and page. */

export type UploadsQuery = { state: AdminUploadState | null; purpose: AdminUploadPurpose | null; after: string | null }

/** The URL's filters; an unknown value is no filter (a hand-edited link still opens the page). */
export function uploadsQuery(url: URL): UploadsQuery {
  const state = url.searchParams.get('state')
  const purpose = url.searchParams.get('purpose')
  return {
    state: (UPLOAD_STATES as readonly string[]).includes(state ?? '') ? (state as AdminUploadState) : null,
    purpose: (UPLOAD_PURPOSES as readonly string[]).includes(purpose ?? '') ? (purpose as AdminUploadPurpose) : null,
    after: url.searchParams.get('after') || null,
  }
}

export function uploadsHref(query: Partial<UploadsQuery>): string {
  const params = new URLSearchParams()
  if (query.state) params.set('state', query.state)
  if (query.purpose) params.set('purpose', query.purpose)
  if (query.after) params.set('after', query.after)
  const search = params.toString()
  return `/admin/uploads${search ? `?${search}` : ''}`
}
