import { parseWithZod } from '@conform-to/zod/v4'
import { data, redirect } from 'react-router'
import type { DocumentsActionData } from '~/components/documents/document-action'
import type { FolderChoice } from '~/components/documents/document-edit-form'
import { entryKey } from '~/components/documents/document-permissions-form'
import { loadError } from '~/components/reporting/item-action'
import { conflictRevision, formFailure, invalidForm, noticeFailure, noticeOf } from '~/components/reporting/report-action'
import type { ApiClient } from '~/lib/api/types'
import { atLeast, revisionCodeProblems } from '~/lib/documents/rules'
import { fileOf, revisionUploadErrors, storeRevision } from '~/lib/documents/revision-upload.server'
import { type DocumentDetail, type FolderNode, type MetadataField, PERMISSION_LEVELS, type PermissionLevel } from '~/lib/documents/types'
import { setFlash } from '~/lib/flash.server'
import { formMessageFor } from '~/lib/forms'
import { projectTitle } from '~/lib/reporting/types'
import { DocumentEditSchema, DocumentMetadataSchema, RevisionSchema } from '~/lib/schemas/documents'
import { RenumberSchema } from '~/lib/schemas/rule-book'
import { revisionFromForm } from '~/lib/schemas/edit-conflict'
import { CHOOSE_AGAIN, documentPage } from './documents-actions.server'

/** A document's page (/documents/{documentId}): what it loads, and its actions, one function per intent. */

export async function loadDocumentPage(api: ApiClient, documentId: string, headers: Headers) {
  const found = await api.GET('/api/documents/{id}', { path: { id: documentId } })
  if (!found.ok) throw loadError(found.error, headers)
  const doc = found.data
  const manage = atLeast(doc.access, 'manage')
  const [project, metadata, folders, permissions, members] = await Promise.all([
    api.GET('/api/projects/{id}', { path: { id: doc.projectId } }),
    api.GET('/api/projects/{id}/metadata-fields', { path: { id: doc.projectId } }),
    atLeast(doc.access, 'edit') ? api.GET('/api/projects/{id}/documents/tree', { path: { id: doc.projectId }, query: { depth: 'all' } }) : null,
    manage ? api.GET('/api/documents/{id}/permissions', { path: { id: documentId } }) : null,
    manage ? api.GET('/api/members') : null,
  ])
  const failed = [project, metadata, folders, permissions, members].find((result) => result !== null && !result.ok)
  return {
    doc,
    projectName: project.ok ? projectTitle(project.data.title) : 'Project',
    metadataFields: metadata.ok ? metadata.data.items : [],
    folders: folders?.ok ? folderChoices(folders.data.folders) : [],
    permissions: permissions?.ok ? permissions.data : null,
    members: members?.ok ? members.data.items : [],
    loadNotice: failed && !failed.ok ? noticeOf(failed.error) : null,
  }
}

/** Every folder of a tree as a choice, named by its path ("Drawings / Level 1"), in tree order. */
function folderChoices(nodes: readonly FolderNode[], above: string[] = []): FolderChoice[] {
  return nodes.flatMap((node) => [{ id: node.id, path: [...above, node.name].join(' / ') }, ...folderChoices(node.children ?? [], [...above, node.name])])
}

/**
 * "New revision". With `transfer=resumable` (the upload island) the action checks the code against
 * the current revision and answers where the file goes; the upload session checks it again before
 * a byte is sent. Without, it forwards the posted file in one request, and what the API refuses
 * comes back next to the field it is about.
 */
export async function newRevision(api: ApiClient, doc: DocumentDetail, formData: FormData, headers: Headers) {
  const submission = parseWithZod(formData, { schema: RevisionSchema })
  const resumable = formData.get('transfer') === 'resumable'
  const file = fileOf(formData)
  const chooseAgain: Record<string, string[]> = file && !resumable ? { file: [CHOOSE_AGAIN] } : {}
  if (submission.status !== 'success') return data<DocumentsActionData>({ intent: 'revision', result: submission.reply({ fieldErrors: chooseAgain }) }, { status: 400 })
  const { code, status, comment } = submission.value
  const problems: Record<string, string[]> = {}
  const codeProblems = revisionCodeProblems(code, status, doc.currentRevision?.code ?? null)
  if (codeProblems.length > 0) problems.code = codeProblems
  if (resumable ? !formData.get('fileName') : !file) problems.file = ['Choose the file to upload.']
  if (Object.keys(problems).length > 0) return data<DocumentsActionData>({ intent: 'revision', result: submission.reply({ fieldErrors: { ...chooseAgain, ...problems } }) }, { status: 400 })
  if (resumable) return data<DocumentsActionData>({ intent: 'revision', ready: { documentId: doc.id, code, status, comment: comment ?? null } }, { headers })
  if (!file) throw data('The file is missing.', { status: 400 })
  const stored = await storeRevision(api, doc.id, file, { code, status, comment })
  if (!stored.ok) {
    if (stored.error.status === 403) return formFailure('revision', submission, stored.error, headers)
    return data<DocumentsActionData>({ intent: 'revision', result: submission.reply({ fieldErrors: { ...revisionUploadErrors(stored.error, file.name), ...chooseAgain } }) }, { status: 400, headers })
  }
  await setFlash(headers, { tone: 'success', message: `Revision ${stored.data.code} of ${doc.number} uploaded.` })
  throw redirect(documentPage(doc.id), { headers })
}

/** "Metadata": every project field's value, an empty one as none (PUT replaces them all). */
export async function saveMetadata(api: ApiClient, doc: DocumentDetail, fields: readonly MetadataField[], formData: FormData, headers: Headers) {
  const submission = parseWithZod(formData, { schema: DocumentMetadataSchema })
  if (submission.status !== 'success') return invalidForm('metadata', submission)
  const values: Record<string, string | null> = {}
  for (const field of fields) {
    const value = formData.get(`metadata.${field.key}`)
    values[field.key] = typeof value === 'string' && value.trim() !== '' ? value.trim() : null
  }
  const result = await api.PUT('/api/documents/{id}/metadata', { path: { id: doc.id }, body: { values, expectedRevision: revisionFromForm(formData.get('expectedRevision')) } })
  if (!result.ok) return formFailure('metadata', submission, result.error, headers)
  await setFlash(headers, { tone: 'success', message: 'Metadata saved.' })
  throw redirect(documentPage(doc.id), { headers })
}

export async function editDetails(api: ApiClient, doc: DocumentDetail, formData: FormData, headers: Headers) {
  const submission = parseWithZod(formData, { schema: DocumentEditSchema })
  if (submission.status !== 'success') return invalidForm('edit', submission)
  const { number, title, folderId } = submission.value
  const result = await api.PATCH('/api/documents/{id}', { path: { id: doc.id }, body: { number, title, folderId: folderId ?? null, expectedRevision: revisionFromForm(formData.get('expectedRevision')) } })
  if (!result.ok) return formFailure('edit', submission, result.error, headers)
  await setFlash(headers, { tone: 'success', message: `${result.data.number} saved.` })
  throw redirect(documentPage(doc.id), { headers })
}

/** "Renumber" (a document controller or an administrator): the new number and the reason; what the API refuses comes back next to its field. */
export async function renumber(api: ApiClient, doc: DocumentDetail, formData: FormData, headers: Headers) {
  const submission = parseWithZod(formData, { schema: RenumberSchema })
  if (submission.status !== 'success') return invalidForm('renumber', submission)
  const result = await api.POST('/api/documents/{id}/renumber', { path: { id: doc.id }, body: submission.value })
  if (!result.ok) return formFailure('renumber', submission, result.error, headers)
  const { document, told } = result.data
  const who = told === 0 ? 'Nobody had received it by transmittal, so no mail was queued.' : `A mail to ${told === 1 ? 'the 1 person' : `each of the ${told} people`} who received it by transmittal is queued in the outbox.`
  await setFlash(headers, { tone: 'success', message: `${doc.number} is now ${document.number}. ${who}` })
  throw redirect(documentPage(doc.id), { headers })
}

/** Archive (read-only, kept with its history) or bring back. Manage only; the archive asked first. */
export async function setArchived(api: ApiClient, doc: DocumentDetail, archived: boolean, headers: Headers) {
  const intent = archived ? 'archive' : 'restore'
  const result = await api.PATCH('/api/documents/{id}', { path: { id: doc.id }, body: { archived } })
  if (!result.ok) return noticeFailure(intent, result.error, headers)
  const message = archived ? `${doc.number} archived. It stays readable with its whole history.` : `${doc.number} is back in use.`
  await setFlash(headers, { tone: 'success', message })
  throw redirect(documentPage(doc.id), { headers })
}

/**
 * "Permissions": the entries on screen with their levels, without the one whose Remove was
 * pressed, plus the person or role chosen under "Add" (PUT replaces the entries at `target.path`:
 * a document's, a folder's or a project's), then back to `target.page`.
 */
export async function savePermissions(api: ApiClient, target: { of: 'project' | 'folder' | 'document'; id: string; page: string }, formData: FormData, headers: Headers) {
  const removed = String(formData.get('remove') ?? '')
  const entries = new Map<string, { subjectKind: 'user' | 'role'; subject: string; level: PermissionLevel }>()
  const add = (key: string, level: unknown) => {
    const entry = entryOf(key, level)
    if (entry) entries.set(entryKey(entry), entry)
  }
  for (const key of formData.getAll('entry')) if (typeof key === 'string' && key !== removed) add(key, formData.get(`level:${key}`))
  const adding = String(formData.get('addSubject') ?? '')
  if (adding && !removed) add(adding, formData.get('addLevel'))
  // Saved against the entries as the page showed them: a save by someone else since is a conflict, the form kept as it was.
  const save = { path: { id: target.id }, body: { entries: [...entries.values()], expectedRevision: revisionFromForm(formData.get('expectedRevision')) } }
  const result =
    target.of === 'project'
      ? await api.PUT('/api/projects/{id}/permissions', save)
      : target.of === 'folder'
        ? await api.PUT('/api/folders/{id}/permissions', save)
        : await api.PUT('/api/documents/{id}/permissions', save)
  if (!result.ok) {
    const revision = conflictRevision(result.error)
    if (revision !== undefined) {
      const kept = {
        entries: formData.getAll('entry').flatMap((key) => (typeof key === 'string' ? [{ key, level: String(formData.get(`level:${key}`) ?? '') }] : [])),
        addSubject: String(formData.get('addSubject') ?? ''),
        addLevel: String(formData.get('addLevel') ?? ''),
      }
      return data<DocumentsActionData>(
        { intent: 'permissions', result: { status: 'error', error: { '': [formMessageFor(result.error)] } }, revision, permissionsKept: kept },
        { status: 409, headers },
      )
    }
    if (result.error.problem?.errors) {
      const messages = Object.values(result.error.problem.errors).flat()
      return data<DocumentsActionData>({ intent: 'permissions', result: { status: 'error', error: { '': messages } } }, { status: 400, headers })
    }
    return noticeFailure('permissions', result.error, headers)
  }
  await setFlash(headers, { tone: 'success', message: removed ? 'Entry removed. Permissions saved.' : 'Permissions saved.' })
  throw redirect(target.page, { headers })
}

function entryOf(key: string, level: unknown): { subjectKind: 'user' | 'role'; subject: string; level: PermissionLevel } | undefined {
  const at = key.indexOf(':')
  const kind = key.slice(0, at)
  const subject = key.slice(at + 1)
  if ((kind !== 'user' && kind !== 'role') || !subject || typeof level !== 'string') return undefined
  if (!(PERMISSION_LEVELS as readonly string[]).includes(level)) return undefined
  return { subjectKind: kind, subject, level: level as PermissionLevel }
}
