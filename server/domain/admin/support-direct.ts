import { and, eq } from 'drizzle-orm'
import { supportAttachments } from '#server/db/schema-admin'
import { sniffFileType, SNIFF_BYTES } from '../documents/revision-type'
import { sendFile, storeAllOrNothing, type DirectFile } from '../uploads/direct'
import type { UploadRuntime } from '../uploads/runtime'
import { deleteBlobs } from '../photos/photos'
import { recordChange } from '../tenancy/change-log'
import { auditSupport, findTicket, type SupportAttachment } from './support'
import { ATTACHMENT_TYPES, attachmentTooLarge, attachmentTypeProblem, closedProblem, createSupportUpload, MAX_ATTACHMENT_BYTES } from './support-attachments'

/**
 * Support attachments sent in one request (the forms without JavaScript; docs/admin/support.md),
 * through the upload engine's one-request path (server/domain/uploads/direct.ts). All or nothing:
 * a refused file takes back the attachments stored before it.
 */

/** Refuses before anything is stored: every file within the size limit and of a type a ticket takes. */
async function check(files: readonly DirectFile[]): Promise<void> {
  for (const file of files) {
    if (file.size > MAX_ATTACHMENT_BYTES) throw attachmentTooLarge(file.size)
    const head = new Uint8Array(await file.slice(0, SNIFF_BYTES).arrayBuffer())
    if (!ATTACHMENT_TYPES.includes(sniffFileType(head))) throw attachmentTypeProblem(file.name || undefined)
  }
}

/** Takes an attachment back (the one-request form's undo when a later file is refused). */
async function removeAttachment(rt: UploadRuntime, attachment: SupportAttachment): Promise<void> {
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
export async function storeDirectAttachments(rt: UploadRuntime, ticketId: string, files: readonly DirectFile[]): Promise<SupportAttachment[]> {
  await rt.run(async (ctx) => {
    const ticket = await findTicket(ctx, ticketId, 'opener-or-admin')
    if (ticket.status === 'closed') throw closedProblem()
  })
  await check(files)
  const storeOne = async (file: DirectFile) => {
    const start = () =>
      rt.run((ctx) => createSupportUpload(ctx, ticketId, { fileName: file.name || 'attachment', size: file.size, contentType: file.type || 'application/octet-stream' }))
    return (await sendFile(rt, 'support', start, file)).attachment
  }
  return storeAllOrNothing(rt, files, storeOne, (attachment) => removeAttachment(rt, attachment), 'support attachments')
}
