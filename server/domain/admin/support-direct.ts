import { and, eq } from 'drizzle-orm'
import { supportAttachments } from '#server/db/schema-admin'
import { sniffFileType, SNIFF_BYTES } from '../documents/revision-type'
import { receiveChunk } from '../photos/chunks'
import { bytesOf, type DirectFile } from '../photos/direct'
import { deleteBlobs, type PhotoRuntime } from '../photos/photos'
import { abortUpload, completeUpload } from '../photos/uploads'
import { recordChange } from '../reporting/change-log'
import { auditSupport, findTicket, type SupportAttachment } from './support'
import { ATTACHMENT_TYPES, attachmentTooLarge, attachmentTypeProblem, closedProblem, createSupportUpload, MAX_ATTACHMENT_BYTES } from './support-attachments'

/**
 * Support attachments sent in one request (the forms without JavaScript; docs/admin/support.md):
 * each file goes through the same session, chunk and complete steps as a resumable upload, so
 * limits, quota and type checks are the same. All or nothing: a refused file takes back the
 * attachments stored before it.
 */

/** Refuses before anything is stored: every file within the size limit and of a type a ticket takes. */
async function check(files: readonly DirectFile[]): Promise<void> {
  for (const file of files) {
    if (file.size > MAX_ATTACHMENT_BYTES) throw attachmentTooLarge(file.size)
    const head = new Uint8Array(await file.slice(0, SNIFF_BYTES).arrayBuffer())
    if (!ATTACHMENT_TYPES.includes(sniffFileType(head))) throw attachmentTypeProblem(file.name || undefined)
  }
}

async function storeOne(rt: PhotoRuntime, ticketId: string, file: DirectFile): Promise<SupportAttachment> {
  const session = await rt.run((ctx) =>
    createSupportUpload(ctx, ticketId, { fileName: file.name || 'attachment', size: file.size, contentType: file.type || 'application/octet-stream' }),
  )
  try {
    let offset = 0
    while (offset < file.size) {
      const end = Math.min(file.size, offset + session.chunkSize)
      offset = (await receiveChunk(rt, session.id, offset, bytesOf(file.slice(offset, end)), end - offset)).offset
    }
    const done = await completeUpload(rt, session.id)
    if (done.purpose !== 'support') throw new Error('a support upload completed as something else')
    return done.attachment
  } catch (error) {
    await abortUpload(rt, session.id).catch(() => undefined)
    throw error
  }
}

/** Takes an attachment back (the one-request form's undo when a later file is refused). */
async function removeAttachment(rt: PhotoRuntime, attachment: SupportAttachment): Promise<void> {
  const key = await rt.run(async (ctx) => {
    const [gone] = await ctx.tx
      .delete(supportAttachments)
      .where(and(eq(supportAttachments.tenantId, ctx.actor.tenantId), eq(supportAttachments.id, attachment.id)))
      .returning({ blobKey: supportAttachments.blobKey, ticketId: supportAttachments.ticketId })
    if (gone) {
      await auditSupport(ctx, { publicUrl: '' }, 'admin.support.changed', gone.ticketId, {
        attachmentRemoved: { id: attachment.id, reason: 'a later file of the same form was refused' },
      })
      await recordChange(ctx, 'SupportTicket', gone.ticketId, 'Updated')
    }
    return gone?.blobKey ?? null
  })
  await deleteBlobs(rt, [key])
}

/** POST /api/support/tickets/{id}/attachments: the files of a form sent without JavaScript. All or nothing. */
export async function storeDirectAttachments(rt: PhotoRuntime, ticketId: string, files: readonly DirectFile[]): Promise<SupportAttachment[]> {
  await rt.run(async (ctx) => {
    const ticket = await findTicket(ctx, ticketId, 'opener-or-admin')
    if (ticket.status === 'closed') throw closedProblem()
  })
  await check(files)
  const stored: SupportAttachment[] = []
  try {
    for (const file of files) stored.push(await storeOne(rt, ticketId, file))
  } catch (error) {
    for (const attachment of stored)
      await removeAttachment(rt, attachment).catch((e: unknown) => rt.warn({ err: e, attachmentId: attachment.id }, 'support attachments: undo failed'))
    throw error
  }
  return stored
}
