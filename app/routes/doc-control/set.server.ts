import { parseWithZod } from '@conform-to/zod/v4'
import { data, redirect } from 'react-router'
import { setPage } from '~/components/doc-control/transmittal-paths'
import { isUuid } from '~/lib/schemas/uuid'
import { picksOf, withPicks, withoutRevision } from '~/components/doc-control/wizard-picks'
import { loadError } from '~/components/reporting/item-action'
import { formFailure, invalidForm, noticeFailure, noticeOf, type Notice, type ReportingActionData } from '~/components/reporting/report-action'
import type { ApiClient } from '~/lib/api/types'
import type { DocumentSet } from '~/lib/doc-control/types'
import { parseDocumentsQuery, searchParamsOf } from '~/lib/documents/query'
import { setFlash } from '~/lib/flash.server'
import { revisionFromForm } from '~/lib/schemas/edit-conflict'
import { failureStatus } from '~/lib/forms'
import { SetCreateSchema, SetDeriveSchema, SetPublishSchema } from '~/lib/schemas/sets'

/** One set (/doc-control/sets/{setId}): what it loads, and its actions, one function per intent. */

export async function findSet(api: ApiClient, setId: string, headers: Headers): Promise<DocumentSet> {
  if (!isUuid(setId)) throw loadError({ kind: 404, status: 404, data: null, problem: undefined, correlationId: undefined, message: 'Not found' }, headers)
  const found = await api.GET('/api/sets/{setId}', { path: { setId } })
  if (!found.ok) throw loadError(found.error, headers)
  return found.data
}

/** The set; a draft also gets the project's documents to choose from (the search in the address). */
export async function loadSetPage(api: ApiClient, request: Request, setId: string, headers: Headers) {
  const set = await findSet(api, setId, headers)
  const derivedFrom = set.derivedFromId ? await api.GET('/api/sets/{setId}', { path: { setId: set.derivedFromId } }) : null
  if (set.status !== 'draft') return { set, derivedFrom: derivedFrom?.ok ? derivedFrom.data : null, picker: null, notice: null as Notice | null }
  const query = parseDocumentsQuery(new URL(request.url).searchParams)
  const [list, naming] = await Promise.all([
    api.GET('/api/documents/search', { query: new URLSearchParams(searchParamsOf({ ...query, projectId: set.projectId, folderId: null })) }),
    api.GET('/api/projects/{id}/naming-standard', { path: { id: set.projectId } }),
  ])
  return {
    set,
    derivedFrom: derivedFrom?.ok ? derivedFrom.data : null,
    picker: { query, list: list.ok ? list.data : null, disciplines: naming.ok ? (naming.data.fields.find((f) => f.key === 'role')?.codes ?? []) : [] },
    notice: list.ok ? null : noticeOf(list.error),
  }
}

const sameAddress = (request: Request) => {
  const url = new URL(request.url)
  return `${url.pathname}${url.search}`
}

/**
 * A change refused because the set was published meanwhile (409) shows as the page's banner, as any
 * refusal. The set was read just before: a change by someone else in between is a conflict, not lost.
 */
function putRevisions(api: ApiClient, set: DocumentSet, revisionIds: string[]) {
  return api.PUT('/api/sets/{setId}/revisions', { path: { setId: set.id }, body: { revisionIds, expectedRevision: set.revision } })
}

export async function addRevisions(api: ApiClient, set: DocumentSet, formData: FormData, request: Request, headers: Headers) {
  const picks = picksOf(formData)
  if (picks.length === 0)
    return data<ReportingActionData>({ intent: 'add-revisions', result: { status: 'error', error: { pick: ['Tick at least one document to add.'] } } }, { status: 400 })
  const saved = await putRevisions(api, set, withPicks(set.revisions, picks))
  if (!saved.ok) return revisionsFailure('add-revisions', saved.error, headers)
  await setFlash(headers, { tone: 'success', message: picks.length === 1 ? '1 revision added.' : `${picks.length} revisions added.` })
  throw redirect(sameAddress(request), { headers })
}

export async function removeRevision(api: ApiClient, set: DocumentSet, formData: FormData, request: Request, headers: Headers) {
  const revisionId = String(formData.get('revisionId') ?? '')
  const removed = set.revisions.find((revision) => revision.revisionId === revisionId)
  if (!removed) throw redirect(sameAddress(request), { headers })
  const saved = await putRevisions(api, set, withoutRevision(set.revisions, revisionId))
  if (!saved.ok) return revisionsFailure('remove-revision', saved.error, headers)
  await setFlash(headers, { tone: 'success', message: `${removed.number} ${removed.code} removed.` })
  throw redirect(sameAddress(request), { headers })
}

function revisionsFailure(intent: string, error: Parameters<typeof noticeOf>[0], headers: Headers) {
  const errors = error.problem?.errors
  if (errors && Object.keys(errors).length > 0) {
    return data<ReportingActionData>({ intent, result: { status: 'error', error: { pick: Object.values(errors).flat() } } }, { status: failureStatus(error), headers })
  }
  return noticeFailure(intent, error, headers)
}

export async function editSet(api: ApiClient, set: DocumentSet, formData: FormData, headers: Headers) {
  const submission = parseWithZod(formData, { schema: SetCreateSchema })
  if (submission.status !== 'success') return invalidForm('edit', submission)
  // Saved against the revision the form was drawn with: a change by someone else since is a conflict, the typed values kept.
  const body = { ...submission.value, expectedRevision: revisionFromForm(formData.get('expectedRevision')) }
  const saved = await api.PATCH('/api/sets/{setId}', { path: { setId: set.id }, body })
  if (!saved.ok) return formFailure('edit', submission, saved.error, headers)
  await setFlash(headers, { tone: 'success', message: `“${saved.data.name}” saved.` })
  throw redirect(setPage(set.id, set.projectId), { headers })
}

export async function publishSet(api: ApiClient, set: DocumentSet, formData: FormData, headers: Headers) {
  const submission = parseWithZod(formData, { schema: SetPublishSchema })
  if (submission.status !== 'success') return invalidForm('publish', submission)
  const published = await api.POST('/api/sets/{setId}/publish', { path: { setId: set.id }, body: submission.value, idempotencyKey: true })
  if (!published.ok) return formFailure('publish', submission, published.error, headers)
  const count = published.data.revisions.length
  await setFlash(headers, { tone: 'success', message: `“${published.data.name}” published: ${count === 1 ? '1 revision' : `${count} revisions`} stamped Published.` })
  throw redirect(setPage(set.id, set.projectId), { headers })
}

export async function deriveSet(api: ApiClient, set: DocumentSet, formData: FormData, headers: Headers) {
  const submission = parseWithZod(formData, { schema: SetDeriveSchema })
  if (submission.status !== 'success') return invalidForm('derive', submission)
  const derived = await api.POST('/api/sets/{setId}/derive', { path: { setId: set.id }, body: submission.value, idempotencyKey: true })
  if (!derived.ok) return formFailure('derive', submission, derived.error, headers)
  await setFlash(headers, { tone: 'success', message: `“${derived.data.name}” derived from “${set.name}”, as a draft.` })
  throw redirect(setPage(derived.data.id, set.projectId), { headers })
}
