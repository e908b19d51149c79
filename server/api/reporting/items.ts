import { Hono, type Context } from 'hono'
import { z } from 'zod'
import { STALE_WRITE } from '~/lib/schemas/edit-conflict'
import type { BackendEnv } from '#server/http/env'
import { bulkItems } from '#server/domain/reporting/bulk'
import { asMember, type DomainContext } from '#server/domain/tenancy/context'
import { listActivity } from '#server/domain/reporting/activity'
import { createItem, deleteItem, getItem, listReportItems, updateItem } from '#server/domain/reporting/items'
import { listOutstanding } from '#server/domain/reporting/outstanding'
import { cursorParam, decodeCursor, limitParam } from '#server/domain/tenancy/paging'
import { confirmClose, createResponse, listResponses } from '#server/domain/reporting/responses'
import { operation } from '#server/http/contract'
import { idempotent } from '#server/http/idempotency'
import { requireSession } from '#server/http/session'
import { ITEM_PRIORITIES } from '~/lib/reporting/types'
import { ActivityListSchema, BulkResultSchema, ItemPageSchema, ItemResponseListSchema, ItemResponseSchema, ItemSchema } from '~/lib/schemas/reporting-responses'
import { expectedRevision } from '~/lib/schemas/edit-conflict'

// ---- Input (docs/site-reporting.md "Validation") ----

/** An HTML form sends an empty field for "nothing": read it as absent (queries) or null (bodies). */
const blankAs = <T>(value: T) => (v: unknown) => (typeof v === 'string' && v.trim() === '' ? value : v)

const text = (max: number, label: string) =>
  z.preprocess(blankAs(null), z.string({ error: `${label} must be text.` }).trim().max(max, `${label} must be at most ${max} characters.`).nullable()).optional()

const photoIds = z.array(z.string({ error: 'Each photo id must be text.' }), { error: 'photoIds must be a list of photo ids.' }).max(100).optional()

const itemFields = {
  title: z.string({ error: 'Enter a title.' }).trim().min(1, 'Enter a title.').max(200, 'The title must be at most 200 characters.'),
  description: text(5000, 'The description'),
  priority: z.enum(ITEM_PRIORITIES, { error: 'Choose a priority: low, medium, high or critical.' }).optional(),
  assigneeUserId: z.preprocess(blankAs(null), z.uuid({ error: 'Choose an active member of the organisation.' }).nullable()).optional(),
  packageKey: z.preprocess(blankAs(null), z.string({ error: 'Choose a package.' }).trim().max(100, 'Choose a package.').nullable()).optional(),
  location: text(500, 'The location'),
  dueDate: z.preprocess(blankAs(null), z.iso.date({ error: 'Enter a real date as YYYY-MM-DD.' }).nullable()).optional(),
  photoIds,
}

export const NewItemSchema = z.object(itemFields)
export const ItemPatchSchema = z.object({
  ...itemFields,
  title: itemFields.title.optional(),
  expectedRevision,
})

export const NewResponseSchema = z.object({
  body: z.string({ error: 'Write a response.' }).trim().min(1, 'Write a response.').max(5000, 'A response must be at most 5000 characters.'),
  requestClose: z.boolean({ error: 'requestClose must be true or false.' }).optional(),
  photoIds,
})

export const CloseDecisionSchema = z.object({
  confirmed: z.boolean({ error: 'Say whether the close is confirmed: true or false.' }),
  body: z.preprocess(blankAs(undefined), z.string({ error: 'The reason must be text.' }).trim().max(5000, 'The reason must be at most 5000 characters.').optional()),
  photoIds,
})

export const BULK_MAX_IDS = 200

export const BulkSchema = z
  .object({
    ids: z
      .array(z.uuid({ error: 'Each id must be an item id.' }), { error: 'ids must be a list of item ids.' })
      .min(1, 'Choose at least one item.')
      .max(BULK_MAX_IDS, `Choose at most ${BULK_MAX_IDS} items at a time.`),
    action: z.enum(['assign', 'package', 'request-close', 'delete'], { error: 'action must be assign, package, request-close or delete.' }),
    assigneeUserId: itemFields.assigneeUserId,
    packageKey: itemFields.packageKey,
    body: z.preprocess(blankAs(undefined), z.string({ error: 'Write a response.' }).trim().max(5000, 'A response must be at most 5000 characters.').optional()),
  })
  .superRefine((input, ctx) => {
    if (input.action === 'assign' && input.assigneeUserId === undefined) ctx.addIssue({ code: 'custom', path: ['assigneeUserId'], message: 'Choose who to assign the items to (null unassigns them).' })
    if (input.action === 'package' && input.packageKey === undefined) ctx.addIssue({ code: 'custom', path: ['packageKey'], message: 'Choose a package (null clears it).' })
    if (input.action === 'request-close' && !input.body) ctx.addIssue({ code: 'custom', path: ['body'], message: 'Write the response that asks for the close.' })
  })

const optionalQuery = <T extends z.ZodType>(schema: T) => z.preprocess(blankAs(undefined), schema.optional())

export const OutstandingQuerySchema = z.object({
  limit: z.preprocess(blankAs(undefined), limitParam),
  before: cursorParam,
  projectId: optionalQuery(z.uuid({ error: 'projectId must be a project id.' })),
  reportId: optionalQuery(z.uuid({ error: 'reportId must be a report id.' })),
  assigneeUserId: optionalQuery(z.uuid({ error: 'assigneeUserId must be a user id.' })),
  packageKey: optionalQuery(z.string().max(100, 'packageKey must be at most 100 characters.')),
  status: optionalQuery(z.enum(['open', 'close_requested'], { error: 'status must be open or close_requested: closed items are never outstanding.' })),
  overdue: optionalQuery(z.enum(['true', 'false'], { error: 'overdue must be true or false.' })),
})

const PageQuerySchema = z.object({ limit: z.preprocess(blankAs(undefined), limitParam), after: cursorParam })

/** The session's member, in one tenant transaction with the request's clock. */
function asSessionMember<T>(c: Context<BackendEnv>, work: (ctx: DomainContext) => Promise<T>): Promise<T> {
  const session = requireSession(c)
  const { db, now } = c.get('deps')
  return asMember(db, session, now(), work)
}

/** Links in item mails fall back to the site's address (server/domain/reporting/item-mail.ts). */
const mailLinks = (c: Context<BackendEnv>) => ({ publicUrl: c.get('deps').config.publicUrl })

// ---- Routes: /api/items/outstanding and /api/items/bulk before /api/items/:id ----

/** docs/site-reporting.md: the items calls. */
export const itemsRoutes = new Hono<BackendEnv>()
  .get(
    '/api/items/outstanding',
    operation({ summary: 'Outstanding items (open or close requested), newest first, keyset paging', tag: 'Items', access: 'session', query: OutstandingQuerySchema, responses: { 200: { description: 'A page of items and the cursor of the next.', schema: ItemPageSchema } } }),
    async (c) => {
      requireSession(c)
      const { before, overdue, ...filters } = c.req.valid('query')
      const cursor = decodeCursor(before, 'before')
      return c.json(await asSessionMember(c, (ctx) => listOutstanding(ctx, { ...filters, before: cursor, overdue: overdue === undefined ? undefined : overdue === 'true' })))
    },
  )

  .post(
    '/api/items/bulk',
    operation({ summary: 'Assign, package, request close or delete up to 200 items', tag: 'Items', access: 'session', body: BulkSchema, idempotent: true, responses: { 200: { description: 'What happened to each item.', schema: BulkResultSchema } } }),
    idempotent,
    async (c) => {
      const session = requireSession(c)
      const { ids, action, assigneeUserId, packageKey, body } = c.req.valid('json')
      const { db, now } = c.get('deps')
      const log = c.get('log')
      const onUnexpected = (error: unknown, id: string) => log.error({ err: error, itemId: id }, 'bulk item action failed')
      const bulk =
        action === 'assign'
          ? { action, assigneeUserId: assigneeUserId ?? null }
          : action === 'package'
            ? { action, packageKey: packageKey ?? null }
            : action === 'request-close'
              ? { action, body: body ?? '' }
              : { action }
      return c.json(await bulkItems(db, session, now(), ids, bulk, onUnexpected, mailLinks(c)))
    },
  )

  .get(
    '/api/reports/:reportId/items',
    operation({ summary: 'Items of a report (keyset paging)', tag: 'Items', access: 'session', query: PageQuerySchema, responses: { 200: { description: 'A page of items.', schema: ItemPageSchema }, 404: 'No such report.' } }),
    async (c) => {
      requireSession(c)
      const { limit, after } = c.req.valid('query')
      const cursor = decodeCursor(after)
      return c.json(await asSessionMember(c, (ctx) => listReportItems(ctx, c.req.param('reportId'), { limit, after: cursor })))
    },
  )

  .post(
    '/api/reports/:reportId/items',
    operation({ summary: 'Add an item to a report', tag: 'Items', access: 'session', body: NewItemSchema, idempotent: true, responses: { 201: { description: 'The item.', schema: ItemSchema }, 403: 'A read-only member.', 404: 'No such report.' } }),
    idempotent,
    async (c) => {
      requireSession(c)
      const input = c.req.valid('json')
      return c.json(await asSessionMember(c, (ctx) => createItem(ctx, c.req.param('reportId'), input, mailLinks(c))), 201)
    },
  )

  .get('/api/items/:id', operation({ summary: 'One item', tag: 'Items', access: 'session', responses: { 200: { description: 'The item.', schema: ItemSchema }, 404: 'No such item.' } }), async (c) =>
    c.json(await asSessionMember(c, (ctx) => getItem(ctx, c.req.param('id')))),
  )

  .patch(
    '/api/items/:id',
    operation({ summary: 'Edit an item', tag: 'Items', access: 'session', body: ItemPatchSchema, responses: { 200: { description: 'The item.', schema: ItemSchema }, 403: 'A read-only member.', 404: 'No such item.', 409: STALE_WRITE } }),
    async (c) => {
      requireSession(c)
      const patch = c.req.valid('json')
      return c.json(await asSessionMember(c, (ctx) => updateItem(ctx, c.req.param('id'), patch, mailLinks(c))))
    },
  )

  .delete('/api/items/:id', operation({ summary: 'Delete an item', tag: 'Items', access: 'session', responses: { 204: 'Deleted.', 403: 'Not allowed.', 404: 'No such item.' } }), async (c) => {
    await asSessionMember(c, (ctx) => deleteItem(ctx, c.req.param('id')))
    return c.body(null, 204)
  })

  .get('/api/items/:id/responses', operation({ summary: 'The item’s thread of responses', tag: 'Items', access: 'session', responses: { 200: { description: 'The responses, oldest first.', schema: ItemResponseListSchema }, 404: 'No such item.' } }), async (c) =>
    c.json({ items: await asSessionMember(c, (ctx) => listResponses(ctx, c.req.param('id'))) }),
  )

  .post(
    '/api/items/:id/responses',
    operation({ summary: 'Respond to an item, optionally asking for it to be closed', tag: 'Items', access: 'session', body: NewResponseSchema, idempotent: true, responses: { 201: { description: 'The response.', schema: ItemResponseSchema }, 403: 'A read-only member.', 404: 'No such item.', 409: 'The item is closed.' } }),
    idempotent,
    async (c) => {
      requireSession(c)
      const input = c.req.valid('json')
      return c.json(await asSessionMember(c, (ctx) => createResponse(ctx, c.req.param('id'), input, mailLinks(c))), 201)
    },
  )

  .post(
    '/api/items/:id/confirm-close',
    operation({ summary: 'Confirm or reject a requested close', tag: 'Items', access: 'session', body: CloseDecisionSchema, idempotent: true, responses: { 200: { description: 'The item.', schema: ItemSchema }, 403: 'Not allowed to verify.', 404: 'No such item.', 409: 'No close was requested.' } }),
    idempotent,
    async (c) => {
      requireSession(c)
      const input = c.req.valid('json')
      return c.json(await asSessionMember(c, (ctx) => confirmClose(ctx, c.req.param('id'), input)))
    },
  )

  .get('/api/items/:id/activity', operation({ summary: 'The item’s history: every change, old → new', tag: 'Items', access: 'session', responses: { 200: { description: 'The activity, oldest first.', schema: ActivityListSchema }, 404: 'No such item.' } }), async (c) =>
    c.json({ items: await asSessionMember(c, (ctx) => listActivity(ctx, c.req.param('id'))) }),
  )
