import { randomInt, randomUUID } from 'node:crypto'
import { onePagePdf } from '#server/db/seed-documents'
import type { UploadSession } from '#server/domain/uploads/engine'
import type { DocumentDetail, NamingStandard, Revision } from '~/lib/documents/types'
import type { Project } from '~/lib/reporting/types'
import type { TestClient } from './auth'
import { putChunk, sha256Hex } from './photos'
import { body } from './reporting-a'

/**
 * Test data for the document API tests, made through the calls a client makes: projects with a
 * code (the naming standard's Project field), documents numbered by the project's standard, and
 * revisions uploaded through the resumable upload. Also a tiny real PDF.
 */

/** A project whose code the default naming standard takes as its Project field. */
export async function documentProject(c: TestClient, code = 'SYM01'): Promise<Project> {
  return body<Project>(await c.post('/api/projects', { title: `Project ${randomUUID().slice(0, 6)}`, code }), 201)
}

let serial = randomInt(1000, 8000)

/** A number valid under the project's standard: each field's first code, and a new serial for free fields. */
export async function nextDocumentNumber(c: TestClient, projectId: string): Promise<string> {
  const standard = await body<NamingStandard>(await c.get(`/api/projects/${projectId}/naming-standard`))
  serial++
  return standard.fields
    .map((f) => f.codes?.[0]?.code ?? (f.charset === 'digits' ? String(serial).padStart(f.minLength, '0').slice(-f.maxLength) : 'X'.repeat(f.minLength)))
    .join('-')
}

export type NewDocumentOptions = { number?: string; title?: string; folderId?: string | null; metadata?: Record<string, string | number> }

/** POST /api/projects/{projectId}/documents: 201 with the document (no revision yet). */
export async function newDocument(c: TestClient, projectId: string, options: NewDocumentOptions = {}): Promise<DocumentDetail> {
  const number = options.number ?? (await nextDocumentNumber(c, projectId))
  return body<DocumentDetail>(
    await c.post(`/api/projects/${projectId}/documents`, { number, title: options.title ?? `Drawing ${number}`, folderId: options.folderId ?? null, metadata: options.metadata ?? {} }),
    201,
  )
}

export type RevisionOptions = {
  code: string
  status: string
  comment?: string
  fileName?: string
  contentType?: string
  checksum?: string
  /** Bytes per chunk (the whole file in one chunk by default). */
  chunkSize?: number
}

/** POST /api/documents/{id}/uploads, the response as it came. */
export function startRevisionUpload(c: TestClient, documentId: string, size: number, options: RevisionOptions): Promise<Response> {
  const { chunkSize: _chunkSize, ...fields } = options
  return c.post(`/api/documents/${documentId}/uploads`, { fileName: 'drawing.pdf', contentType: 'application/pdf', size, ...fields })
}

/** A revision's upload session: 201 expected. */
export async function createRevisionUpload(c: TestClient, documentId: string, bytes: Uint8Array, options: RevisionOptions): Promise<UploadSession> {
  return body<UploadSession>(await startRevisionUpload(c, documentId, bytes.length, options), 201)
}

/** Sends every byte of the session in chunks of `chunkSize` (all at once by default). */
export async function sendBytes(c: TestClient, sessionId: string, bytes: Uint8Array, chunkSize = bytes.length): Promise<void> {
  for (let offset = 0; offset < bytes.length; offset += chunkSize) {
    await body<UploadSession>(await putChunk(c, sessionId, offset, bytes.subarray(offset, offset + chunkSize)))
  }
}

/** Uploads `bytes` as the document's next revision through the resumable upload, and completes it: 201 with the Revision. */
export async function uploadRevision(c: TestClient, documentId: string, bytes: Uint8Array, options: RevisionOptions): Promise<Revision> {
  const session = await createRevisionUpload(c, documentId, bytes, { checksum: sha256Hex(bytes), ...options })
  await sendBytes(c, session.id, bytes, options.chunkSize)
  return body<Revision>(await c.post(`/api/uploads/${session.id}/complete`), 201)
}

/** POST /api/documents/{id}/revisions as the form without JavaScript sends it. */
export function postRevisionForm(c: TestClient, documentId: string, file: { bytes: Uint8Array; name: string; type?: string } | undefined, fields: Record<string, string>): Promise<Response> {
  const form = new FormData()
  for (const [name, value] of Object.entries(fields)) form.append(name, value)
  if (file) form.append('file', new File([new Uint8Array(file.bytes)], file.name, { type: file.type ?? 'application/octet-stream' }))
  return c.request(`/api/documents/${documentId}/revisions`, { method: 'POST', body: form })
}

/** A real one-page PDF of `width` × `height` points with a filled rectangle (xref offsets computed). */
export function pdfDocument(width = 595, height = 842): Buffer {
  return onePagePdf({ content: '0 0 1 rg 36 36 200 120 re f', width, height })
}
