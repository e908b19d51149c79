import { and, asc, eq, isNull, ne } from 'drizzle-orm'
import { reusableSelect, type ValueOf } from '#server/db/reusable-select'
import { itemPins } from '#server/db/schema-documents'
import { reportItems } from '#server/db/schema-reporting'
import { Problem, problems, type FieldErrors } from '#server/http/problem'
import type { CdeState, DrawingView, ItemPin, Pin, PinColours } from '~/lib/documents/types'
import type { ItemStatus } from '~/lib/reporting/types'
import { announcePhotosChanged } from '../photos/announce'
import type { DomainContext } from '../tenancy/context'
import { bumpListRevision, listRevision, refuseStaleWrite } from '../tenancy/edit-conflict'
import { findItem, type ItemRow } from '../reporting/item-view'
import { isUuid } from '~/lib/schemas/uuid'
import { ensure } from '../reporting/permissions'
import { coloursOf, revisionSheets, sheetImage, sheetSettingsOf } from './drawings'
import { findDocument, notFound, recordDocumentAudit, type DocumentRow } from './places'

/**
 * Item pins (docs/documents.md "Drawings and pins"): a report item sits at x, y (fractions of the
 * sheet, top-left origin) on a revision of a drawing of its project. Placing, moving, removing and
 * confirming need the right to edit items and view on the drawing; each is audited and announced
 * to realtime as an update of the item (its revision stays: a pin is not a field sync carries).
 * When a new revision supersedes the sheet, the pins follow it flagged for review.
 */

export type PinPlacement = { documentId: string; x: number; y: number }

type PinRow = { itemId: string; documentId: string; revisionId: string; x: number; y: number; needsReview: boolean }

const pinColumns = {
  itemId: itemPins.itemId,
  documentId: itemPins.documentId,
  revisionId: itemPins.revisionId,
  x: itemPins.x,
  y: itemPins.y,
  needsReview: itemPins.needsReview,
}

function noPin(): Problem {
  return new Problem(problems.notFound('The item is not pinned on a drawing.'))
}

function isNotFound(error: unknown): boolean {
  return error instanceof Problem && error.init.status === 404
}

async function pinOf(ctx: DomainContext, itemId: string): Promise<PinRow | undefined> {
  const [row] = await pinStatement(ctx.tx, { tenantId: ctx.actor.tenantId, itemId })
  return row
}

/** Every item page looks for its pin: built once (server/db/reusable-select.ts). */
const pinStatement = reusableSelect((tx, value: ValueOf<{ tenantId: string; itemId: string }>) =>
  tx
    .select(pinColumns)
    .from(itemPins)
    .where(and(eq(itemPins.tenantId, value('tenantId')), eq(itemPins.itemId, value('itemId'))))
    .limit(1),
)

/** The pin's drawing; one the caller may not view hides the pin (404, as if there were none). */
async function pinnedDocument(ctx: DomainContext, row: PinRow): Promise<DocumentRow> {
  try {
    return (await findDocument(ctx, row.documentId)).doc
  } catch (error) {
    if (isNotFound(error)) throw noPin()
    throw error
  }
}

function pinJson(item: Pick<ItemRow, 'id' | 'number' | 'title' | 'status'>, row: PinRow, revisionCode: string, colours: PinColours): Pin {
  const status = item.status as ItemStatus
  return {
    itemId: item.id,
    itemNumber: item.number,
    itemTitle: item.title,
    itemStatus: status,
    documentId: row.documentId,
    revisionId: row.revisionId,
    revisionCode,
    x: row.x,
    y: row.y,
    needsReview: row.needsReview,
    colour: colours[status],
  }
}

async function itemPinOf(ctx: DomainContext, item: ItemRow, row: PinRow, doc: DocumentRow): Promise<ItemPin> {
  const revision = (await revisionSheets(ctx, [row.revisionId])).get(row.revisionId)
  const saved = await listRevision(ctx, 'item-pin', item.id)
  const { rotation } = await sheetSettingsOf(ctx, doc.id)
  const { colours } = await coloursOf(ctx, doc.projectId)
  return {
    ...pinJson(item, row, revision?.code ?? '', colours),
    projectId: doc.projectId,
    documentNumber: doc.number,
    documentTitle: doc.title,
    sheet: revision?.sheet ? sheetImage(revision, revision.sheet, rotation) : null,
    colours,
    revision: saved.revision,
  }
}

/** GET /api/items/{itemId}/pin */
export async function getItemPin(ctx: DomainContext, itemId: string): Promise<ItemPin> {
  const item = await findItem(ctx, itemId)
  const row = await pinOf(ctx, item.id)
  if (!row) throw noPin()
  return itemPinOf(ctx, item, row, await pinnedDocument(ctx, row))
}

/**
 * Why a document the caller can see takes no pin of this item, or its current revision if it does:
 * it must be a drawing of the item's project (not archived, its current revision a sheet) with
 * pinning on.
 */
async function pinTarget(ctx: DomainContext, doc: DocumentRow, projectId: string): Promise<{ revisionId: string } | { problem: string }> {
  if (doc.projectId !== projectId) return { problem: 'Choose a drawing of this item’s project.' }
  if (doc.state === 'Archived') return { problem: 'This drawing is archived: choose a current one.' }
  const current = (await revisionSheets(ctx, [doc.currentRevisionId])).get(doc.currentRevisionId ?? '')
  if (!current?.sheet) return { problem: 'This document has no sheet to pin on: its current revision is not a drawing.' }
  if (!(await sheetSettingsOf(ctx, doc.id)).pinning) return { problem: 'Pinning is switched off for this drawing.' }
  return { revisionId: current.id }
}

function inSheet(value: number): boolean {
  return Number.isFinite(value) && value >= 0 && value <= 1
}

/**
 * PUT /api/items/{itemId}/pin: places the item's pin on the current revision of a drawing, or
 * moves it there. A drawing the caller may not view is a 404 like an unknown one; one that takes
 * no pin, and a point off the sheet, are field errors. A move against an older revision of the pin
 * (someone placed, moved, confirmed or removed it since) is refused: 409 KR_EDIT_CONFLICT with the
 * pin as it is now (null when removed).
 */
export async function placeItemPin(ctx: DomainContext, itemId: string, placement: PinPlacement & { expectedRevision?: number | undefined }): Promise<ItemPin> {
  const item = await findItem(ctx, itemId, { lock: true })
  ensure(ctx.actor, 'item.edit')
  const saved = await listRevision(ctx, 'item-pin', item.id, { lock: true })
  await refuseStaleWrite(ctx, { ...saved, what: 'pin' }, placement.expectedRevision, async () => {
    const current = await pinOf(ctx, item.id)
    return current ? itemPinOf(ctx, item, current, await pinnedDocument(ctx, current)) : null
  })
  const { doc } = await findDocument(ctx, placement.documentId)
  const errors: FieldErrors = {}
  const target = await pinTarget(ctx, doc, item.projectId)
  if ('problem' in target) errors.documentId = [target.problem]
  if (!inSheet(placement.x)) errors.x = ['x is a fraction of the sheet’s width, from 0 (left) to 1 (right).']
  if (!inSheet(placement.y)) errors.y = ['y is a fraction of the sheet’s height, from 0 (top) to 1 (bottom).']
  if ('problem' in target || Object.keys(errors).length > 0) throw new Problem(problems.badRequest('The pin cannot go there: see each field.', errors))

  const previous = await pinOf(ctx, item.id)
  const values = { documentId: doc.id, revisionId: target.revisionId, x: placement.x, y: placement.y, needsReview: false, placedBy: ctx.actor.userId, updatedAt: ctx.now }
  await ctx.tx
    .insert(itemPins)
    .values({ tenantId: ctx.actor.tenantId, itemId: item.id, ...values, createdAt: ctx.now })
    .onConflictDoUpdate({ target: [itemPins.tenantId, itemPins.itemId], set: values })
  await bumpListRevision(ctx, 'item-pin', item.id)
  await recordDocumentAudit(ctx, 'documents.pin.placed', 'ReportItem', item.id, {
    documentId: doc.id,
    revisionId: target.revisionId,
    x: placement.x,
    y: placement.y,
    ...(previous && { from: { documentId: previous.documentId, revisionId: previous.revisionId, x: previous.x, y: previous.y } }),
  })
  await announcePhotosChanged(ctx, item.id)
  return itemPinOf(ctx, item, { itemId: item.id, ...values }, doc)
}

/** The item (locked), its pin and the pin's drawing, for a change of the pin by someone who may edit items. */
async function pinToChange(ctx: DomainContext, itemId: string): Promise<{ item: ItemRow; row: PinRow; doc: DocumentRow }> {
  const item = await findItem(ctx, itemId, { lock: true })
  ensure(ctx.actor, 'item.edit')
  const row = await pinOf(ctx, item.id)
  if (!row) throw noPin()
  return { item, row, doc: await pinnedDocument(ctx, row) }
}

/** DELETE /api/items/{itemId}/pin */
export async function removeItemPin(ctx: DomainContext, itemId: string): Promise<void> {
  const { item, row } = await pinToChange(ctx, itemId)
  await ctx.tx.delete(itemPins).where(and(eq(itemPins.tenantId, ctx.actor.tenantId), eq(itemPins.itemId, item.id)))
  await bumpListRevision(ctx, 'item-pin', item.id)
  await recordDocumentAudit(ctx, 'documents.pin.removed', 'ReportItem', item.id, { documentId: row.documentId, revisionId: row.revisionId, x: row.x, y: row.y })
  await announcePhotosChanged(ctx, item.id)
}

/** POST /api/items/{itemId}/pin/confirm: the pin is still in the right place on the revised sheet. */
export async function confirmItemPin(ctx: DomainContext, itemId: string): Promise<ItemPin> {
  const { item, row, doc } = await pinToChange(ctx, itemId)
  if (row.needsReview) {
    await ctx.tx
      .update(itemPins)
      .set({ needsReview: false, updatedAt: ctx.now })
      .where(and(eq(itemPins.tenantId, ctx.actor.tenantId), eq(itemPins.itemId, item.id)))
    await bumpListRevision(ctx, 'item-pin', item.id)
    // Confirming places the pin anew where it is, on the revision it moved to.
    await recordDocumentAudit(ctx, 'documents.pin.placed', 'ReportItem', item.id, { documentId: row.documentId, revisionId: row.revisionId, x: row.x, y: row.y, confirmed: true })
    await announcePhotosChanged(ctx, item.id)
  }
  return itemPinOf(ctx, item, { ...row, needsReview: false }, doc)
}

/** The pins on a document's current revision, by item number; deleted items are gone from every list. */
async function pinsOnCurrent(ctx: DomainContext, doc: DocumentRow): Promise<Pin[]> {
  if (!doc.currentRevisionId) return []
  const rows = await ctx.tx
    .select({ ...pinColumns, number: reportItems.number, title: reportItems.title, status: reportItems.status })
    .from(itemPins)
    .innerJoin(reportItems, and(eq(reportItems.tenantId, itemPins.tenantId), eq(reportItems.id, itemPins.itemId), isNull(reportItems.deletedAt)))
    .where(and(eq(itemPins.tenantId, ctx.actor.tenantId), eq(itemPins.documentId, doc.id), eq(itemPins.revisionId, doc.currentRevisionId)))
    .orderBy(asc(reportItems.number))
  if (rows.length === 0) return []
  const code = (await revisionSheets(ctx, [doc.currentRevisionId])).get(doc.currentRevisionId)?.code ?? ''
  const { colours } = await coloursOf(ctx, doc.projectId)
  return rows.map((row) => pinJson({ id: row.itemId, number: row.number, title: row.title, status: row.status }, row, code, colours))
}

/** GET /api/documents/{id}/pins */
export async function documentPins(ctx: DomainContext, documentId: string): Promise<Pin[]> {
  const { doc } = await findDocument(ctx, documentId)
  return pinsOnCurrent(ctx, doc)
}

/**
 * A new revision supersedes the sheet: every pin of the document moves to it at the same x, y,
 * flagged for review until someone confirms or moves it. Called in the transaction that issues
 * the revision; answers how many pins moved.
 */
export async function movePinsToRevision(ctx: DomainContext, documentId: string, newRevisionId: string): Promise<number> {
  const revision = (await revisionSheets(ctx, [newRevisionId])).get(newRevisionId)
  if (revision?.documentId !== documentId) throw new Error(`movePinsToRevision: revision ${newRevisionId} is not a revision of document ${documentId}`)
  const moved = await ctx.tx
    .update(itemPins)
    .set({ revisionId: newRevisionId, needsReview: true, updatedAt: ctx.now })
    .where(and(eq(itemPins.tenantId, ctx.actor.tenantId), eq(itemPins.documentId, documentId), ne(itemPins.revisionId, newRevisionId)))
    .returning({ itemId: itemPins.itemId })
  for (const { itemId } of moved) await announcePhotosChanged(ctx, itemId)
  return moved.length
}

/**
 * GET /api/documents/{id}/drawing?revisionId=: the current revision's sheet (or the one asked for,
 * of the same document) with the document's settings and colours, and its pins when it is the
 * current one. A revision without a sheet is a 404: there is nothing to draw.
 */
export async function getDrawingView(ctx: DomainContext, documentId: string, revisionId?: string): Promise<DrawingView> {
  const { doc } = await findDocument(ctx, documentId)
  const wanted = revisionId ?? doc.currentRevisionId
  if (!wanted || !isUuid(wanted)) throw notFound()
  const revisions = await revisionSheets(ctx, [wanted, doc.currentRevisionId])
  const revision = revisions.get(wanted)
  if (!revision?.sheet || revision.documentId !== doc.id) throw notFound()
  const current = revision.id === doc.currentRevisionId
  const supersededBy = revision.supersededById ? (await revisionSheets(ctx, [revision.supersededById])).get(revision.supersededById) : undefined
  const settings = await sheetSettingsOf(ctx, doc.id)
  const currentRevision = doc.currentRevisionId ? revisions.get(doc.currentRevisionId) : undefined
  return {
    document: { id: doc.id, projectId: doc.projectId, number: doc.number, title: doc.title, state: doc.state as CdeState },
    revision: { id: revision.id, code: revision.code, superseded: !current, supersededBy: supersededBy ? { id: supersededBy.id, code: supersededBy.code } : null },
    currentRevision: currentRevision ? { id: currentRevision.id, code: currentRevision.code } : null,
    sheet: sheetImage(revision, revision.sheet, settings.rotation),
    scale: settings.scale,
    pinning: settings.pinning,
    colours: (await coloursOf(ctx, doc.projectId)).colours,
    pins: current ? await pinsOnCurrent(ctx, doc) : [],
  }
}
