import { parseWithZod } from '@conform-to/zod/v4'
import { data, redirect } from 'react-router'
import type { DocumentsActionData } from '~/components/documents/document-action'
import { numberFromParts } from '~/components/documents/number-builder'
import { formFailure, invalidForm } from '~/components/reporting/report-action'
import type { ApiClient } from '~/lib/api/types'
import { folderHref } from '~/lib/documents/query'
import { normaliseNumber, revisionCodeProblems } from '~/lib/documents/rules'
import { fileOf, fileRefusal, storeRevision } from '~/lib/documents/revision-upload.server'
import type { DocumentDetail } from '~/lib/documents/types'
import { setFlash } from '~/lib/flash.server'
import { DocumentNumberCheckSchema, DocumentUploadSchema, FolderCreateSchema } from '~/lib/schemas/documents'
export const documentPath = (documentId: string) => `/api/documents/${encodeURIComponent(documentId)}`
export const documentPage = (documentId: string) => `/documents/${encodeURIComponent(documentId)}`

/** Without JavaScript a form that comes back cannot keep its file: say so beside the file field. */
export const CHOOSE_AGAIN = 'Choose the file again if it is no longer selected: a form that comes back with problems cannot keep it.'

export async function createFolder(api: ApiClient, projectId: string, formData: FormData, headers: Headers) {
  const submission = parseWithZod(formData, { schema: FolderCreateSchema })
  if (submission.status !== 'success') return invalidForm('create-folder', submission)
  const { name, parentId } = submission.value
  const result = await api.POST('/api/projects/{id}/folders', { path: { id: projectId }, body: { name, parentId: parentId ?? null }, idempotencyKey: true })
  if (!result.ok) return formFailure('create-folder', submission, result.error, headers)
  await setFlash(headers, { tone: 'success', message: `Folder “${result.data.name}” created.` })
  throw redirect(folderHref(projectId, result.data.id), { headers })
}

/** The metadata fields of a form, by key: what the user typed, empty ones left out (the backend checks what is required). */
export function metadataOf(formData: FormData): Record<string, string> {
  const values: Record<string, string> = {}
  for (const [name, value] of formData) {
    if (!name.startsWith('metadata.') || typeof value !== 'string' || value.trim() === '') continue
    values[name.slice('metadata.'.length)] = value.trim()
  }
  return values
}

/**
 * "Upload document": the document, then its file as the first revision. The revision's code and
 * status are checked before the document is made, so a bad code never leaves a document without
 * its file. With `transfer=resumable` (the upload island) the action stops once the document
 * exists and answers where the file goes; without, it forwards the posted file in one request. A
 * file refused after the document was made (its type, its size) goes to the document's page with
 * what happened: the document is there, its file is not.
 */
export async function uploadDocument(api: ApiClient, projectId: string, formData: FormData, headers: Headers) {
  builtNumber(formData)
  const submission = parseWithZod(formData, { schema: DocumentUploadSchema })
  const resumable = formData.get('transfer') === 'resumable'
  const file = fileOf(formData)
  const chooseAgain: Record<string, string[]> = file && !resumable ? { file: [CHOOSE_AGAIN] } : {}
  if (submission.status !== 'success') return data<DocumentsActionData>({ intent: 'upload', result: submission.reply({ fieldErrors: chooseAgain }) }, { status: 400 })
  const { number, title, folderId, code, status, comment } = submission.value
  const problems: Record<string, string[]> = {}
  const codeProblems = revisionCodeProblems(code, status, null)
  if (codeProblems.length > 0) problems.code = codeProblems
  if (resumable ? !formData.get('fileName') : !file) problems.file = ['Choose the file to upload.']
  if (Object.keys(problems).length > 0) return data<DocumentsActionData>({ intent: 'upload', result: submission.reply({ fieldErrors: { ...chooseAgain, ...problems } }) }, { status: 400 })

  const created = await api.POST('/api/projects/{id}/documents', { path: { id: projectId }, body: { number, title, folderId: folderId ?? null, metadata: metadataOf(formData) }, idempotencyKey: true })
  if (!created.ok) {
    const failure = formFailure('upload', submission, created.error, headers)
    const result = failure.data.result
    if (result && file && !resumable) result.error = { ...result.error, ...chooseAgain }
    return failure
  }
  const doc = created.data
  if (resumable) return data<DocumentsActionData>({ intent: 'upload', ready: { documentId: doc.id, code, status, comment: comment ?? null } }, { headers })
  if (!file) throw data('The file is missing.', { status: 400 })
  const stored = await storeRevision(api, doc.id, file, { code, status, comment })
  if (!stored.ok) return fileNotStored(headers, doc, fileRefusal(stored.error, file.name))
  await setFlash(headers, { tone: 'success', message: `Document ${doc.number} uploaded as ${code}.` })
  throw redirect(documentPage(doc.id), { headers })
}

/** A blank Number with the builder's parts chosen (without JavaScript) is the number they make; a typed number wins. */
function builtNumber(formData: FormData): void {
  const typed = formData.get('number')
  if (typeof typed === 'string' && typed.trim() !== '') return
  const built = numberFromParts(formData)
  if (built !== null) formData.set('number', built)
}

/** "Check name": the number against the naming standard and the project's other documents, without saving. */
export async function checkName(api: ApiClient, projectId: string, formData: FormData, headers: Headers) {
  builtNumber(formData)
  const submission = parseWithZod(formData, { schema: DocumentNumberCheckSchema })
  if (submission.status !== 'success') return invalidForm('upload', submission)
  const result = await api.POST('/api/projects/{id}/documents/validate', { path: { id: projectId }, body: { number: submission.value.number } })
  if (!result.ok) return formFailure('upload', submission, result.error, headers)
  const problems = result.data.errors.number ?? []
  return data<DocumentsActionData>(
    { intent: 'upload', result: submission.reply({ fieldErrors: { number: problems } }), nameCheck: { number: normaliseNumber(submission.value.number), valid: problems.length === 0 } },
    { headers },
  )
}

/** The island stored the first revision's file (`upload-finished`): say so on the document's page. */
export async function uploadFinished(api: ApiClient, formData: FormData, headers: Headers, message: (doc: DocumentDetail, code: string) => string) {
  const documentId = String(formData.get('documentId') ?? '')
  const code = String(formData.get('code') ?? '')
  if (!documentId) throw data('The document is missing.', { status: 400 })
  const doc = await api.GET('/api/documents/{id}', { path: { id: documentId } })
  if (doc.ok) await setFlash(headers, { tone: 'success', message: message(doc.data, code) })
  throw redirect(documentPage(documentId), { headers })
}

/** The island's file was refused after the document was made (`upload-refused`). */
export async function uploadRefused(api: ApiClient, formData: FormData, headers: Headers) {
  const documentId = String(formData.get('documentId') ?? '')
  // The island's own words about the refusal; bounded, as it comes from the page.
  const reason = String(formData.get('reason') ?? '').slice(0, 500)
  if (!documentId) throw data('The document is missing.', { status: 400 })
  const doc = await api.GET('/api/documents/{id}', { path: { id: documentId } })
  if (!doc.ok) throw redirect(documentPage(documentId), { headers })
  return fileNotStored(headers, doc.data, reason)
}

async function fileNotStored(headers: Headers, doc: Pick<DocumentDetail, 'id' | 'number'>, reason: string): Promise<never> {
  await setFlash(headers, { tone: 'warning', message: `Document ${doc.number} was created, but its file was not stored. ${reason} Upload the file with “New revision”.` })
  throw redirect(documentPage(doc.id), { headers })
}
