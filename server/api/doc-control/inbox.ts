import { Hono } from 'hono'
import { z } from 'zod'
import { inbox, INBOX_KINDS } from '#server/domain/doc-control/inbox'
import { asMember } from '#server/domain/tenancy/context'
import type { BackendEnv } from '#server/http/env'
import { operation } from '#server/http/contract'
import { InboxEntrySchema } from '~/lib/schemas/doc-control-responses'
import { optional, wholeNumber } from '#server/http/query'
import { requireSession } from '#server/http/session'

/** docs/doc-control.md "API": the caller's inbox of review tasks and received transmittals. */

export const INBOX_PAGE_SIZE = 20

const InboxQuery = z.object({
  kind: optional(z.enum(INBOX_KINDS, { error: 'kind is all, tasks or transmittals.' })).transform((v) => v ?? 'all'),
  page: optional(wholeNumber('page', 10_000)).transform((v) => v ?? 1),
  pageSize: optional(wholeNumber('pageSize', 100)).transform((v) => v ?? INBOX_PAGE_SIZE),
})

export const inboxRoutes = new Hono<BackendEnv>().get(
  '/api/inbox',
  operation({
    summary: 'My review tasks and the transmittals sent to me, newest first',
    tag: 'Document control',
    access: 'session',
    query: InboxQuery,
    responses: { 200: { description: 'A page of the caller’s tasks and transmittals.', schema: z.object({ items: z.array(InboxEntrySchema), total: z.number().int().min(0), page: z.number().int().min(1), pageSize: z.number().int().min(1) }) }, 400: 'Invalid query parameters.' },
  }),
  async (c) => {
    const session = requireSession(c)
    const { db, now } = c.get('deps')
    return c.json(await asMember(db, session, now(), (ctx) => inbox(ctx, c.req.valid('query'))))
  },
)
