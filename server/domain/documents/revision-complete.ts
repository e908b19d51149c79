import { and, eq, sql } from 'drizzle-orm'
import { documentRevisions, documents } from '#server/db/schema-documents'
import type { BlobStore } from '#server/storage/blob-store'
import { DRAWING_TYPE, stateOfStatus } from '~/lib/documents/rules'
import type { Revision } from '~/lib/documents/types'
import { deleteBlobs, type PhotoRuntime } from '../photos/photos'
import { ensureQuota } from '../uploads/quota'
import { checkStaged, ensureStillCompleting, markCompleted, markFailed, reopen } from '../uploads/complete'
import type { SessionRow } from '../uploads/session'
import { registerFinisher } from '../uploads/engine'
import { ensureNotUnderReview } from './review-lock'
import type { DomainContext } from '../tenancy/context'
import { issueProblems } from './rule-book'
import { requireLevel } from './access'
import { movePinsToRevision } from './pins'
import { findDocument, recordDocumentChange } from './places'
import { archivedProblem, currentCodeOf, revisionConflict, revisionKey } from './revision-rules'
import { sheetSourceType, storeSheet, type Sheet } from './revision-sheet'
import { sniffFileType, SNIFF_BYTES } from './revision-type'
import { supersedeRevision, type Told } from './superseded'
import { revisionColumns, revisionViews } from './views'

/**
 * What completing a revision session makes (docs/documents.md "Revisions"): the file's type read
 * from its bytes, the file moved into place under `{tenantId}/revisions/`, a sheet raster for
 * images and PDFs, then, in one transaction with the document locked, the code checked again
 * against the then-current revision, the revision issued (version max + 1), the previous one
 * superseded, the document's status and state set from the revision's, pins moved to the new
 * revision for review, and the change logged and audited.
 *
 * The revision takes its session's id: a completed session names its revision without a column of
 * its own, and completing it again answers the same revision.
 */

/** A completed revision session's revision, for a retry of complete. */
export async function replayRevision(ctx: DomainContext, row: SessionRow): Promise<Revision | undefined> {
  if (!row.documentId) return undefined
  await findDocument(ctx, row.documentId)
  const [revision] = await ctx.tx
    .select(revisionColumns)
    .from(documentRevisions)
    .where(and(eq(documentRevisions.tenantId, ctx.actor.tenantId), eq(documentRevisions.id, row.id)))
    .limit(1)
  return revision ? (await revisionViews(ctx, [revision]))[0] : undefined
}

/** The first bytes of a blob, for sniffing its type. */
async function headOf(store: BlobStore, key: string, size: number): Promise<Uint8Array> {
  const parts: Buffer[] = []
  for await (const chunk of store.read(key, { start: 0, end: Math.min(size, SNIFF_BYTES) - 1 }) as AsyncIterable<Buffer>) parts.push(chunk)
  return Buffer.concat(parts)
}

type Issued = { kind: 'issued'; revision: Revision } | { kind: 'conflict'; problems: string[]; currentCode: string | null }

/** Finishes a claimed revision session (photos/upload-complete.ts `claimSession`). */
export async function finishRevision(rt: PhotoRuntime, row: SessionRow, tenantId: string): Promise<Revision> {
  const { documentId, revisionInput: input } = row
  if (documentId === null || input === null) throw new Error('a revision upload session without its document or revision')
  const revisionId = row.id
  let fileKey: string | undefined
  let sheet: Sheet | undefined
  try {
    const { size, sha256 } = await checkStaged(rt, row)
    const contentType = sniffFileType(await headOf(rt.store, row.stagingKey, size))
    fileKey = revisionKey(tenantId, revisionId, 'file', sha256)
    await rt.store.move(row.stagingKey, fileKey)
    // Sheets are for drawings (type DR): a specification's first page is not something to pin items on.
    const [owner] = await rt.run((ctx) =>
      ctx.tx.select({ docType: documents.docType }).from(documents).where(and(eq(documents.tenantId, ctx.actor.tenantId), eq(documents.id, documentId))).limit(1),
    )
    const source = owner?.docType === DRAWING_TYPE ? sheetSourceType(contentType, size) : undefined
    const stored = fileKey
    if (source) sheet = await storeSheet(rt.store, stored, source, (sheetSha) => revisionKey(tenantId, revisionId, 'sheet-png', sheetSha), rt.warn)
    const made = sheet
    const outcome = await rt.run(async (ctx): Promise<Issued> => {
      await ensureStillCompleting(ctx, row.id)
      const { doc, level } = await findDocument(ctx, documentId, 'view', { lock: true })
      requireLevel(level, 'upload')
      if (doc.state === 'Archived') throw archivedProblem()
      await ensureNotUnderReview(ctx, doc.id)
      await ensureQuota(ctx, size, { exceptSessionId: row.id })
      const currentCode = await currentCodeOf(ctx, doc)
      const errors = issueProblems(input.code, input.status, currentCode)
      const problems = [...(errors.status ?? []), ...(errors.code ?? [])]
      if (problems.length > 0) return { kind: 'conflict', problems, currentCode }

      const [next] = await ctx.tx
        .select({ version: sql<number>`coalesce(max(${documentRevisions.version}), 0)::int + 1` })
        .from(documentRevisions)
        .where(and(eq(documentRevisions.tenantId, tenantId), eq(documentRevisions.documentId, doc.id)))
      const version = Number(next?.version ?? 1)
      const [inserted] = await ctx.tx
        .insert(documentRevisions)
        .values({
          tenantId,
          id: revisionId,
          documentId: doc.id,
          version,
          code: input.code,
          status: input.status,
          comment: input.comment,
          issuedBy: ctx.actor.userId,
          fileName: row.fileName,
          contentType,
          sizeBytes: size,
          sha256,
          blobKey: stored,
          sheetWidth: made?.width ?? null,
          sheetHeight: made?.height ?? null,
          sheetKey: made?.key ?? null,
          createdAt: ctx.now,
        })
        .returning(revisionColumns)
      if (!inserted) throw new Error('revision not stored')
      let told: Told | undefined
      if (doc.currentRevisionId) {
        told = await supersedeRevision(ctx, rt.links, {
          document: doc,
          from: { id: doc.currentRevisionId, code: currentCode ?? '' },
          to: { id: revisionId, code: input.code, status: input.status },
        })
        await movePinsToRevision(ctx, doc.id, revisionId)
      }
      const revision = await recordDocumentChange(ctx, 'Document', doc.id, 'Updated', 'documents.revision.issued', {
        revisionId,
        version,
        code: input.code,
        status: input.status,
        supersedes: currentCode,
        ...(told && { told }),
        fileName: row.fileName,
        contentType,
        sizeBytes: size,
        sha256,
      })
      await ctx.tx
        .update(documents)
        .set({ currentRevisionId: revisionId, status: input.status, state: stateOfStatus(input.status) ?? 'WIP', updatedBy: ctx.actor.userId, updatedAt: ctx.now, revision })
        .where(and(eq(documents.tenantId, tenantId), eq(documents.id, doc.id)))
      await markCompleted(ctx, row.id)
      const [view] = await revisionViews(ctx, [inserted])
      if (!view) throw new Error('revision view not made')
      return { kind: 'issued', revision: view }
    })
    if (outcome.kind === 'issued') return outcome.revision
    // A refusal like a checksum mismatch: the session fails and its bytes go; upload again with the next code.
    await deleteBlobs(rt, [stored, sheet?.key ?? null])
    fileKey = undefined
    sheet = undefined
    await markFailed(rt, row, 'conflict')
    throw revisionConflict(outcome.problems, outcome.currentCode, input.status)
  } catch (error) {
    // Anything but a refusal that failed the session leaves it open, the bytes back in staging.
    await deleteBlobs(rt, [sheet?.key ?? null])
    if (fileKey) {
      try {
        await rt.store.move(fileKey, row.stagingKey)
      } catch (moveError) {
        rt.warn({ err: moveError, key: fileKey }, 'an upload could not be put back in staging')
      }
    }
    await reopen(rt, row)
    throw error
  }
}

declare module '#server/domain/uploads/engine' {
  interface UploadMade {
    revision: { revision: Revision }
  }
}

registerFinisher('revision', {
  finish: async (rt, row, tenantId) => ({ revision: await finishRevision(rt, row, tenantId) }),
  replay: async (ctx, row) => {
    const revision = await replayRevision(ctx, row)
    return revision && { revision }
  },
})
