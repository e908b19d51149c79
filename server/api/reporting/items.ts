import { Hono, type Context } from 'hono'
import { z } from 'zod'
import type { BackendEnv } from '#server/http/env'
import { fieldErrors } from '#server/http/problem'
import { bulkItems } from '#server/domain/reporting/bulk'
import { asMember, type DomainContext } from '#server/domain/reporting/context'
import { listActivity } from '#server/domain/reporting/activity'
import { createItem, deleteItem, getItem, listReportItems, updateItem } from '#server/domain/reporting/items'
import { listOutstanding } from '#server/domain/reporting/outstanding'
import { decodeCursor, limitParam } from '#server/domain/reporting/paging'
import { confirmClose, createResponse, listResponses } from '#server/domain/reporting/responses'
import { parseJson } from '#server/http/body'
import { idempotent } from '#server/http/idempotency'
import { Problem, problems } from '#server/http/problem'
import { requireSession } from '#server/http/session'
import { ITEM_PRIORITIES } from '~/lib/reporting/types'

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
export const ItemPatchSchema = z.object({ ...itemFields, title: itemFields.title.optional() })

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
  before: z.string().optional(),
  projectId: optionalQuery(z.uuid({ error: 'projectId must be a project id.' })),
  reportId: optionalQuery(z.uuid({ error: 'reportId must be a report id.' })),
  assigneeUserId: optionalQuery(z.uuid({ error: 'assigneeUserId must be a user id.' })),
  packageKey: optionalQuery(z.string().max(100, 'packageKey must be at most 100 characters.')),
  status: optionalQuery(z.enum(['open', 'close_requested'], { error: 'status must be open or close_requested: closed items are never outstanding.' })),
  overdue: optionalQuery(z.enum(['true', 'false'], { error: 'overdue must be true or false.' })),
})

const PageQuerySchema = z.object({ limit: z.preprocess(blankAs(undefined), limitParam), after: z.string().optional() })

function parseQuery<S extends z.ZodType>(c: Context<BackendEnv>, schema: S): z.infer<S> {
  const result = schema.safeParse(c.req.query())
  if (!result.success) throw new Problem(problems.badRequest('Some query parameters are not valid.', fieldErrors(result.error)))
  return result.data
}

/** The session's member, in one tenant transaction with the request's clock. */
function asSessionMember<T>(c: Context<BackendEnv>, work: (ctx: DomainContext) => Promise<T>): Promise<T> {
  const session = requireSession(c)
  const { db, now } = c.get('deps')
  return asMember(db, session, now(), work)
}

// ---- Routes: /api/items/outstanding and /api/items/bulk before /api/items/:id ----

/** docs/site-reporting.md: the items calls. */
export const itemsRoutes = new Hono<BackendEnv>()
  .get('/api/items/outstanding', async (c) => {
    requireSession(c)
    const { before, overdue, ...filters } = parseQuery(c, OutstandingQuerySchema)
    const cursor = decodeCursor(before, 'before')
    return c.json(await asSessionMember(c, (ctx) => listOutstanding(ctx, { ...filters, before: cursor, overdue: overdue === undefined ? undefined : overdue === 'true' })))
  })

  .post('/api/items/bulk', idempotent, async (c) => {
    const session = requireSession(c)
    const { ids, action, assigneeUserId, packageKey, body } = await parseJson(c, BulkSchema)
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
    return c.json(await bulkItems(db, session, now(), ids, bulk, onUnexpected))
  })

  .get('/api/reports/:reportId/items', async (c) => {
    requireSession(c)
    const { limit, after } = parseQuery(c, PageQuerySchema)
    const cursor = decodeCursor(after)
    return c.json(await asSessionMember(c, (ctx) => listReportItems(ctx, c.req.param('reportId'), { limit, after: cursor })))
  })

  .post('/api/reports/:reportId/items', idempotent, async (c) => {
    requireSession(c)
    const input = await parseJson(c, NewItemSchema)
    return c.json(await asSessionMember(c, (ctx) => createItem(ctx, c.req.param('reportId'), input)), 201)
  })

  .get('/api/items/:id', async (c) => c.json(await asSessionMember(c, (ctx) => getItem(ctx, c.req.param('id')))))

  .patch('/api/items/:id', async (c) => {
    requireSession(c)
    const patch = await parseJson(c, ItemPatchSchema)
    return c.json(await asSessionMember(c, (ctx) => updateItem(ctx, c.req.param('id'), patch)))
  })

  .delete('/api/items/:id', async (c) => {
    await asSessionMember(c, (ctx) => deleteItem(ctx, c.req.param('id')))
    return c.body(null, 204)
  })

  .get('/api/items/:id/responses', async (c) => c.json({ items: await asSessionMember(c, (ctx) => listResponses(ctx, c.req.param('id'))) }))

  .post('/api/items/:id/responses', idempotent, async (c) => {
    requireSession(c)
    const input = await parseJson(c, NewResponseSchema)
    return c.json(await asSessionMember(c, (ctx) => createResponse(ctx, c.req.param('id'), input)), 201)
  })

  .post('/api/items/:id/confirm-close', idempotent, async (c) => {
    requireSession(c)
    const input = await parseJson(c, CloseDecisionSchema)
    return c.json(await asSessionMember(c, (ctx) => confirmClose(ctx, c.req.param('id'), input)))
  })

  .get('/api/items/:id/activity', async (c) => c.json({ items: await asSessionMember(c, (ctx) => listActivity(ctx, c.req.param('id'))) }))
