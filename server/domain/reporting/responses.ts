import { and, asc, eq } from 'drizzle-orm'
import { reusableSelect, type ValueOf } from '#server/db/reusable-select'
import { itemResponses } from '#server/db/schema-reporting'
import { Problem, problems, type FieldErrors } from '#server/http/problem'
import type { Item, ItemResponse, ItemStatus } from '~/lib/reporting/types'
import { afterLatest, recordActivity } from './activity'
import { recordChange } from '../tenancy/change-log'
import type { DomainContext } from '../tenancy/context'
import { findItem, toItem, type ItemRow } from './item-view'
import { refOf, userRefs } from '../tenancy/user-refs'
import { storeItem } from './items'
import { photosNotOnItem } from './item-photos'
import { ensure } from './permissions'
import { mailItemCloseRequested, mailItemResponse, type MailLinks } from './item-mail'

/**
 * The item's thread and its status model (docs/site-reporting.md "Status and who may do what"):
 * a response may ask for the close; only the verifier (the creator, or an administrator) confirms
 * it or rejects it with a reason. Every status change is an item Updated in the change log.
 */

export type NewResponse = { body: string; requestClose?: boolean | undefined; photoIds?: string[] | undefined }
export type CloseDecision = { confirmed: boolean; body?: string | undefined; photoIds?: string[] | undefined }

const responseColumns = {
  id: itemResponses.id,
  itemId: itemResponses.itemId,
  kind: itemResponses.kind,
  authorUserId: itemResponses.authorUserId,
  body: itemResponses.body,
  requestClose: itemResponses.requestClose,
  photoIds: itemResponses.photoIds,
  createdAt: itemResponses.createdAt,
}

type ResponseRow = { id: string; itemId: string; kind: string; authorUserId: string | null; body: string | null; requestClose: boolean; photoIds: string[]; createdAt: Date }

async function toResponses(ctx: DomainContext, rows: ResponseRow[]): Promise<ItemResponse[]> {
  const authors = await userRefs(ctx, rows.map((r) => r.authorUserId))
  return rows.map(
    (row) =>
      ({
        id: row.id,
        itemId: row.itemId,
        kind: row.kind as ItemResponse['kind'],
        author: refOf(authors, row.authorUserId),
        body: row.body,
        requestClose: row.requestClose,
        photoIds: row.photoIds,
        createdAtUtc: row.createdAt.toISOString(),
      }) satisfies ItemResponse,
  )
}

function conflict(detail: string, code: string): Problem {
  return new Problem({ status: 409, title: 'Conflict', detail, code })
}

/** A response's photos must be live photos of the same item (of this tenant): others are a 400 on photoIds. */
async function checkPhotos(ctx: DomainContext, itemId: string, photoIds: string[] | undefined, errors: FieldErrors): Promise<void> {
  if (!photoIds || photoIds.length === 0) return
  const unknown = await photosNotOnItem(ctx, itemId, photoIds)
  if (unknown.length > 0) errors.photoIds = [`Only photos of this item can be attached; not found on it: ${unknown.join(', ')}.`]
}

async function appendResponse(
  ctx: DomainContext,
  itemId: string,
  values: { kind: ItemResponse['kind']; body: string | null; requestClose: boolean; photoIds?: string[] | undefined },
): Promise<ResponseRow> {
  const [row] = await ctx.tx
    .insert(itemResponses)
    .values({ tenantId: ctx.actor.tenantId, itemId, authorUserId: ctx.actor.userId, createdAt: afterLatest(ctx, itemResponses, itemId), ...values, photoIds: [...new Set(values.photoIds ?? [])] })
    .returning(responseColumns)
  if (!row) throw new Error('response not stored')
  return row
}

/** Moves the item to `status` (the caller holds its row lock): change log, row, in one go. */
async function moveTo(ctx: DomainContext, row: ItemRow, status: ItemStatus): Promise<ItemRow> {
  const revision = await recordChange(ctx, 'ReportItem', row.id, 'Updated')
  const closing = status === 'closed'
  return storeItem(ctx, row.id, { status, closedAt: closing ? ctx.now : null, closedBy: closing ? ctx.actor.userId : null, revision, updatedAt: ctx.now })
}

/** GET /api/items/{id}/responses: oldest first. */
export async function listResponses(ctx: DomainContext, itemId: string): Promise<ItemResponse[]> {
  const item = await findItem(ctx, itemId)
  return toResponses(ctx, await responsesStatement(ctx.tx, { tenantId: ctx.actor.tenantId, itemId: item.id }))
}

/** Every item page reads them: built once (server/db/reusable-select.ts). */
const responsesStatement = reusableSelect((tx, value: ValueOf<{ tenantId: string; itemId: string }>) =>
  tx
    .select(responseColumns)
    .from(itemResponses)
    .where(and(eq(itemResponses.tenantId, value('tenantId')), eq(itemResponses.itemId, value('itemId'))))
    .orderBy(asc(itemResponses.createdAt), asc(itemResponses.id)),
)

/** POST /api/items/{id}/responses: a closed item takes no responses (reopen it first). */
export async function createResponse(ctx: DomainContext, itemId: string, input: NewResponse, links: MailLinks): Promise<ItemResponse> {
  const row = await findItem(ctx, itemId, { lock: true })
  ensure(ctx.actor, 'item.respond')
  const errors: FieldErrors = {}
  await checkPhotos(ctx, row.id, input.photoIds, errors)
  if (Object.keys(errors).length > 0) throw new Problem(problems.badRequest('Some fields are not valid.', errors))
  if (row.status === 'closed') throw conflict('The item is closed; it takes no more responses until it is reopened.', 'KR_ITEM_CLOSED')

  const requestClose = input.requestClose === true
  const response = await appendResponse(ctx, row.id, { kind: 'response', body: input.body, requestClose, photoIds: input.photoIds })
  if (requestClose && row.status === 'open') {
    await moveTo(ctx, row, 'close_requested')
    await recordActivity(ctx, row.id, 'close_requested', [{ field: 'status', from: row.status, to: 'close_requested' }])
  } else {
    // The item's thread changed: its revision moves on, so sync and realtime see a reply too.
    const revision = await recordChange(ctx, 'ReportItem', row.id, 'Updated')
    await storeItem(ctx, row.id, { revision, updatedAt: ctx.now })
    await recordActivity(ctx, row.id, 'responded')
  }
  // One mail per person: whoever is asked to confirm the close is not also told of the response.
  const verifiers = requestClose && row.status === 'open' ? await mailItemCloseRequested(ctx, row, links) : []
  await mailItemResponse(ctx, row, input.body, links, verifiers)
  const [view] = await toResponses(ctx, [response])
  if (!view) throw new Error('response view not built')
  return view
}

/**
 * POST /api/items/{id}/confirm-close. Confirmed: an open or close-requested item is closed.
 * Rejected (a reason is required): a close-requested or closed item goes back to open; the reason
 * stays in the thread and is part of the item's activity entry.
 */
export async function confirmClose(ctx: DomainContext, itemId: string, input: CloseDecision): Promise<Item> {
  const row = await findItem(ctx, itemId, { lock: true })
  ensure(ctx.actor, 'item.verify', { createdBy: row.createdBy })
  const errors: FieldErrors = {}
  await checkPhotos(ctx, row.id, input.photoIds, errors)
  if (!input.confirmed && !input.body) errors.body = ['Give the reason the item is not closed.']
  if (Object.keys(errors).length > 0) throw new Problem(problems.badRequest('Some fields are not valid.', errors))

  if (input.confirmed) {
    if (row.status === 'closed') throw conflict('The item is already closed.', 'KR_ITEM_STATE')
    const closed = await moveTo(ctx, row, 'closed')
    await appendResponse(ctx, row.id, { kind: 'close_confirmed', body: input.body ?? null, requestClose: false, photoIds: input.photoIds })
    await recordActivity(ctx, row.id, 'closed', [{ field: 'status', from: row.status, to: 'closed' }])
    return toItem(ctx, closed)
  }
  if (row.status === 'open') throw conflict('The item is already open: there is no close to reject.', 'KR_ITEM_STATE')
  const reopened = await moveTo(ctx, row, 'open')
  await appendResponse(ctx, row.id, { kind: 'close_rejected', body: input.body ?? null, requestClose: false, photoIds: input.photoIds })
  await recordActivity(ctx, row.id, 'reopened', [{ field: 'status', from: row.status, to: 'open' }], input.body)
  return toItem(ctx, reopened)
}
