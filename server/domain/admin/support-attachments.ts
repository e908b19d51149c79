import { and, eq } from 'drizzle-orm'
import { supportAttachments, supportTickets } from '#server/db/schema-admin'
import { Problem, problems } from '#server/http/problem'
import type { BlobStore } from '#server/storage/blob-store'
import { sniffFileType, SNIFF_BYTES } from '../documents/revision-type'
import type { PhotoRuntime } from '../photos/photos'
import { ensureQuota } from '../uploads/quota'
import type { ServedBlob } from '../uploads/served'
import { checkStaged, ensureStillCompleting, markCompleted, markFailed, reopen } from '../uploads/complete'
import { checkNewUpload, insertSession, type NewUpload, type SessionRow, type UploadSession } from '../uploads/session'
import { registerFinisher } from '../uploads/engine'
import type { DomainContext } from '../tenancy/context'
import { recordChange } from '../tenancy/change-log'
import { isUuid } from '~/lib/schemas/uuid'
import { userRefs } from '../tenancy/user-refs'
import { attachmentColumns, auditSupport, findTicket, toAttachment, type SupportAttachment } from './support'

/**
 * Attachments of support tickets (docs/admin/support.md "Attachments"), through the one resumable
 * upload (docs/photos.md "Upload protocol"): an upload session of purpose `support` names its
 * ticket; chunks, status, abort and complete are the /api/uploads calls. Completing reads the
 * file's type from its bytes (images, PDF, plain text, ZIP; anything else is refused with 415 and
 * the session fails), moves it to `{tenantId}/support/{attachmentId}/file.{sha256}` and stores the
 * attachment, which takes its session's id. The form without JavaScript: support-direct.ts.
 * Who may attach: the ticket's opener and the organisation's administrators.
 */

export const MAX_ATTACHMENT_BYTES = 25 * 1024 * 1024
export const MAX_ATTACHMENTS_AT_ONCE = 5
export const ATTACHMENT_TYPES: readonly string[] = [
  'image/jpeg',
  'image/png',
  'image/webp',
  'image/gif',
  'image/heic',
  'image/heif',
  'image/tiff',
  'application/pdf',
  'text/plain',
  'application/zip',
]

export function attachmentTooLarge(size: number): Problem {
  return new Problem({
    status: 413,
    title: 'File too large',
    detail: `An attachment may be at most ${MAX_ATTACHMENT_BYTES / (1024 * 1024)} MB (this one is ${Math.ceil(size / (1024 * 1024))} MB).`,
    code: 'KR_UPLOAD_TOO_LARGE',
    remediation: 'Send a smaller file, or split it.',
  })
}

export function attachmentTypeProblem(name?: string): Problem {
  return new Problem({
    status: 415,
    title: 'Unsupported media type',
    detail: `${name ? `${name} is` : 'The file is'} not an image, a PDF, plain text or a ZIP archive.`,
    code: 'KR_UPLOAD_TYPE',
    remediation: 'Attach an image (JPEG, PNG, WebP, GIF, HEIC, TIFF), a PDF, a text file or a ZIP archive.',
  })
}

export const closedProblem = () => new Problem({ status: 409, title: 'Conflict', detail: 'This ticket is closed: it takes no more attachments.', code: 'KR_SUPPORT_CLOSED' })

function attachmentKey(tenantId: string, attachmentId: string, sha256: string): string {
  return `${tenantId}/support/${attachmentId}/file.${sha256}`
}

/** POST /api/support/tickets/{id}/uploads: a support attachment's upload session. The opener or an administrator; the ticket not closed. */
export async function createSupportUpload(ctx: DomainContext, ticketId: string, input: NewUpload): Promise<UploadSession> {
  const ticket = await findTicket(ctx, ticketId, 'opener-or-admin')
  if (ticket.status === 'closed') throw closedProblem()
  const { checksum, errors } = checkNewUpload(input)
  if (Object.keys(errors).length > 0) throw new Problem(problems.badRequest('Some fields are not valid.', errors))
  if (input.size > MAX_ATTACHMENT_BYTES) throw attachmentTooLarge(input.size)
  await ensureQuota(ctx, input.size)
  return insertSession(ctx, { purpose: 'support', supportTicketId: ticket.id }, input, checksum)
}

/** A completed support session's attachment, for a retry of complete. */
export async function replaySupport(ctx: DomainContext, row: SessionRow): Promise<SupportAttachment | undefined> {
  const [found] = await ctx.tx
    .select(attachmentColumns)
    .from(supportAttachments)
    .where(and(eq(supportAttachments.tenantId, ctx.actor.tenantId), eq(supportAttachments.id, row.id)))
    .limit(1)
  return found ? toAttachment(found, await userRefs(ctx, [found.uploadedBy])) : undefined
}

async function headOf(store: BlobStore, key: string, size: number): Promise<Uint8Array> {
  const parts: Buffer[] = []
  for await (const chunk of store.read(key, { start: 0, end: Math.min(size, SNIFF_BYTES) - 1 }) as AsyncIterable<Buffer>) parts.push(chunk)
  return Buffer.concat(parts)
}

/** Finishes a claimed support session (photos/upload-complete.ts `claimSession`). */
export async function finishSupport(rt: PhotoRuntime, row: SessionRow, tenantId: string): Promise<SupportAttachment> {
  const ticketId = row.supportTicketId
  if (ticketId === null) throw new Error('a support upload session without its ticket')
  let fileKey: string | undefined
  try {
    const { size, sha256 } = await checkStaged(rt, row)
    const contentType = sniffFileType(await headOf(rt.store, row.stagingKey, size))
    if (!ATTACHMENT_TYPES.includes(contentType)) {
      await markFailed(rt, row, 'type')
      throw attachmentTypeProblem(row.fileName)
    }
    fileKey = attachmentKey(tenantId, row.id, sha256)
    await rt.store.move(row.stagingKey, fileKey)
    const stored = fileKey
    return await rt.run(async (ctx) => {
      await ensureStillCompleting(ctx, row.id)
      const ticket = await findTicket(ctx, ticketId, 'opener-or-admin', { lock: true })
      await ensureQuota(ctx, size, { exceptSessionId: row.id })
      const [inserted] = await ctx.tx
        .insert(supportAttachments)
        .values({
          tenantId,
          id: row.id,
          ticketId: ticket.id,
          uploadedBy: ctx.actor.userId,
          fileName: row.fileName,
          contentType,
          sizeBytes: size,
          sha256,
          blobKey: stored,
          createdAt: ctx.now,
        })
        .returning(attachmentColumns)
      if (!inserted) throw new Error('support attachment not stored')
      await ctx.tx
        .update(supportTickets)
        .set({ updatedAt: ctx.now })
        .where(and(eq(supportTickets.tenantId, tenantId), eq(supportTickets.id, ticket.id)))
      await markCompleted(ctx, row.id)
      // The complete call carries no request details into the domain: the audit entry names the upload session instead.
      await auditSupport(ctx, { publicUrl: '' }, 'admin.support.changed', ticket.id, {
        number: ticket.number,
        attachment: { id: inserted.id, fileName: row.fileName, contentType, sizeBytes: size, sha256, uploadSessionId: row.id },
      })
      await recordChange(ctx, 'SupportTicket', ticket.id, 'Updated')
      return toAttachment(inserted, await userRefs(ctx, [inserted.uploadedBy]))
    })
  } catch (error) {
    // Anything but a refusal that failed the session leaves it open, the bytes back in staging.
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

/** GET /api/support/tickets/{id}/attachments/{attachmentId}: which blob to serve, for the opener and administrators. */
export async function attachmentBlob(ctx: DomainContext, ticketId: string, attachmentId: string): Promise<ServedBlob> {
  const ticket = await findTicket(ctx, ticketId, 'opener-or-admin')
  const missing = () => new Problem(problems.notFound('The attachment was not found.'))
  if (!isUuid(attachmentId)) throw missing()
  const [row] = await ctx.tx
    .select(attachmentColumns)
    .from(supportAttachments)
    .where(and(eq(supportAttachments.tenantId, ctx.actor.tenantId), eq(supportAttachments.ticketId, ticket.id), eq(supportAttachments.id, attachmentId)))
    .limit(1)
  if (!row) throw missing()
  return { key: row.blobKey, contentType: row.contentType, sha256: row.sha256, fileName: row.fileName }
}

declare module '#server/domain/uploads/engine' {
  interface UploadMade {
    support: { attachment: SupportAttachment }
  }
}

registerFinisher('support', {
  finish: async (rt, row, tenantId) => ({ attachment: await finishSupport(rt, row, tenantId) }),
  replay: async (ctx, row) => {
    const attachment = await replaySupport(ctx, row)
    return attachment && { attachment }
  },
})
