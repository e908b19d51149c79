import { Hono } from 'hono'
import { z } from 'zod'
import type { BackendEnv } from '#server/http/env'
import { asMember } from '#server/domain/tenancy/context'
import { createView, deleteView, listViews, replaceView, VIEW_SCOPES } from '#server/domain/reporting/views'
import { operation } from '#server/http/contract'
import { idempotent } from '#server/http/idempotency'
import { requireSession } from '#server/http/session'
import { SavedViewListSchema, SavedViewSchema } from '~/lib/schemas/reporting-responses'

/** docs/site-reporting.md "Saved views". */
export const VIEW_NAME_MAX = 80
export const VIEW_QUERY_MAX = 2000

const scopeField = z.enum(VIEW_SCOPES, { error: 'scope must be personal or shared.' })

/**
 * The items screen's URL query without its "?" (one leading "?" is dropped, as a pasted
 * `location.search` has it). It must read back as the same query in a URL: no spaces or control
 * characters, no "#", and every %-escape well formed.
 */
function isQueryString(value: string): boolean {
  if (/[\s\p{Cc}#]/u.test(value)) return false
  try {
    decodeURIComponent(value)
    return true
  } catch {
    return false
  }
}

const queryField = z
  .string({ error: 'query must be the items screen’s URL query.' })
  .transform((value) => (value.startsWith('?') ? value.slice(1) : value))
  .pipe(
    z
      .string()
      .max(VIEW_QUERY_MAX, `The query has at most ${VIEW_QUERY_MAX} characters.`)
      .refine(isQueryString, 'query must be a URL query string, like status=open&group=package.'),
  )

const ViewBody = z.object({
  name: z.string({ error: 'Enter a name.' }).trim().min(1, 'Enter a name.').max(VIEW_NAME_MAX, `Use at most ${VIEW_NAME_MAX} characters.`),
  scope: scopeField,
  query: queryField,
})

const ViewListQuery = z.object({ scope: scopeField.optional() })

/** docs/site-reporting.md "Saved views" (spec §7 "Saved views"). */
export const viewsRoutes = new Hono<BackendEnv>()
  .get('/api/views', operation({ summary: 'Saved views of the items screen', tag: 'Saved views', access: 'session', query: ViewListQuery, responses: { 200: { description: 'The views.', schema: SavedViewListSchema } } }), async (c) => {
    const session = requireSession(c)
    const { scope } = c.req.valid('query')
    const { db, now } = c.get('deps')
    return c.json({ items: await asMember(db, session, now(), (ctx) => listViews(ctx, scope)) })
  })

  .post(
    '/api/views',
    operation({ summary: 'Save a view', tag: 'Saved views', access: 'session', body: ViewBody, idempotent: true, responses: { 201: { description: 'The view.', schema: SavedViewSchema }, 403: 'Shared views need an administrator.' } }),
    idempotent,
    async (c) => {
      const session = requireSession(c)
      const input = c.req.valid('json')
      const { db, now } = c.get('deps')
      return c.json(await asMember(db, session, now(), (ctx) => createView(ctx, input)), 201)
    },
  )

  .put('/api/views/:id', operation({ summary: 'Replace a saved view', tag: 'Saved views', access: 'session', body: ViewBody, responses: { 200: { description: 'The view.', schema: SavedViewSchema }, 403: 'Not yours to change.', 404: 'No such view.' } }), async (c) => {
    const session = requireSession(c)
    const input = c.req.valid('json')
    const { db, now } = c.get('deps')
    return c.json(await asMember(db, session, now(), (ctx) => replaceView(ctx, c.req.param('id'), input)))
  })

  .delete('/api/views/:id', operation({ summary: 'Delete a saved view', tag: 'Saved views', access: 'session', responses: { 204: 'Deleted.', 403: 'Not yours to delete.', 404: 'No such view.' } }), async (c) => {
    const session = requireSession(c)
    const { db, now } = c.get('deps')
    await asMember(db, session, now(), (ctx) => deleteView(ctx, c.req.param('id')))
    return c.body(null, 204)
  })
