import { and, eq, inArray, ne } from 'drizzle-orm'
import { users } from '#server/db/schema'
import { transmittalRecipients, transmittalRevisions, transmittals } from '#server/db/schema-doc-control'
import { documents, type RenumberRecord } from '#server/db/schema-documents'
import { mayRenumber } from './rule-book'
import { enqueueMail } from '#server/domain/mail'
import { wantsMail } from '#server/domain/settings/notification-preferences'
import { Problem, problems, type FieldErrors } from '#server/http/problem'
import { normaliseNumber } from '~/lib/documents/rules'
import type { DocumentDetail } from '~/lib/documents/types'
import type { DomainContext } from '../tenancy/context'
import { forbidden } from './access'
import { checkProposal, getDocument, lockNumbers, searchTextOf } from './documents'
import { findDocument, findProject, recordDocumentChange } from './places'

/**
 * Renumber (docs/doc-control.md "The rule book"): the one way to change the number, and with it
 * the discipline and type, of a document whose number the rule book locks. A document controller
 * (manage on the document, not read-only) or an administrator, with a reason; the change is
 * audited, kept on the document (`renumbers`, its history of numbers), and everyone who received
 * the document by transmittal gets a mail through the outbox.
 */

export type RenumberResult = { document: DocumentDetail; told: number }

export async function renumberDocument(ctx: DomainContext, documentId: string, input: { number: string; reason: string }, links: { publicUrl: string }): Promise<RenumberResult> {
  const { doc, level } = await findDocument(ctx, documentId, 'view', { lock: true })
  if (!mayRenumber(ctx.actor, level)) throw forbidden('Only a document controller (who manages this document) or an administrator renumbers a document.')
  if (doc.state === 'Archived') throw new Problem({ status: 409, title: 'Conflict', detail: 'This document is archived: bring it back before renumbering it.', code: 'KR_ARCHIVED' })
  const errors: FieldErrors = {}
  const reason = input.reason.trim()
  if (reason === '') errors.reason = ['Say why the document is renumbered: its recipients are told.']
  const number = normaliseNumber(input.number)
  const { project } = await findProject(ctx, doc.projectId)
  await lockNumbers(ctx, doc.projectId)
  let parsed: Record<string, string> | null = null
  if (number === doc.number) errors.number = [`${number} is already its number.`]
  else {
    const proposal = await checkProposal(ctx, project, { number, documentId: doc.id })
    Object.assign(errors, proposal.errors)
    parsed = proposal.parsed
  }
  if (Object.keys(errors).length > 0 || !parsed) throw new Problem({ ...problems.badRequest('The renumber has problems: see each field.', errors), code: 'KR_DOCUMENT_INVALID' })

  const recipients = await recipientsOf(ctx, doc.id)
  const discipline = (parsed.role ?? '').toUpperCase()
  const docType = (parsed.type ?? '').toUpperCase()
  const [current] = await ctx.tx
    .select({ renumbers: documents.renumbers })
    .from(documents)
    .where(and(eq(documents.tenantId, ctx.actor.tenantId), eq(documents.id, doc.id)))
  const record: RenumberRecord = { at: ctx.now.toISOString(), byUserId: ctx.actor.userId, from: doc.number, to: number, reason, told: recipients.length }
  const revision = await recordDocumentChange(ctx, 'Document', doc.id, 'Updated', 'documents.document.renumbered', {
    number: { from: doc.number, to: number },
    discipline: { from: doc.discipline, to: discipline },
    type: { from: doc.docType, to: docType },
    reason,
    told: recipients.length,
  })
  await ctx.tx
    .update(documents)
    .set({
      number,
      discipline,
      docType,
      renumbers: [...(current?.renumbers ?? []), record],
      searchText: searchTextOf(number, doc.title, doc.metadata),
      updatedBy: ctx.actor.userId,
      updatedAt: ctx.now,
      revision,
    })
    .where(and(eq(documents.tenantId, ctx.actor.tenantId), eq(documents.id, doc.id)))

  const [by] = await ctx.tx.select({ displayName: users.displayName }).from(users).where(eq(users.id, ctx.actor.userId)).limit(1)
  let told = 0
  for (const person of recipients) {
    if (!(await wantsMail(ctx.tx, ctx.actor.tenantId, person.userId, 'transmittal'))) continue
    await enqueueMail(ctx.tx, {
      tenantId: ctx.actor.tenantId,
      to: person.email,
      template: 'document-renumbered',
      variables: {
        publicUrl: links.publicUrl,
        recipientName: person.displayName,
        renumberedBy: by?.displayName ?? 'Someone',
        oldNumber: doc.number,
        newNumber: number,
        title: doc.title,
        reason,
        documentUrl: `${links.publicUrl}/documents/${doc.id}`,
      },
    })
    told++
  }
  return { document: await getDocument(ctx, doc.id), told }
}

/** Everyone who received a revision of the document in a sent transmittal, once each. */
async function recipientsOf(ctx: DomainContext, documentId: string): Promise<Array<{ userId: string; email: string; displayName: string }>> {
  const sent = await ctx.tx
    .selectDistinct({ transmittalId: transmittalRevisions.transmittalId })
    .from(transmittalRevisions)
    .innerJoin(transmittals, and(eq(transmittals.tenantId, transmittalRevisions.tenantId), eq(transmittals.id, transmittalRevisions.transmittalId)))
    .where(and(eq(transmittalRevisions.tenantId, ctx.actor.tenantId), eq(transmittalRevisions.documentId, documentId), ne(transmittals.status, 'draft')))
  if (sent.length === 0) return []
  return ctx.tx
    .selectDistinct({ userId: transmittalRecipients.userId, email: users.email, displayName: users.displayName })
    .from(transmittalRecipients)
    .innerJoin(users, eq(users.id, transmittalRecipients.userId))
    .where(
      and(
        eq(transmittalRecipients.tenantId, ctx.actor.tenantId),
        inArray(
          transmittalRecipients.transmittalId,
          sent.map((s) => s.transmittalId),
        ),
      ),
    )
}
