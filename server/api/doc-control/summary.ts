import { Hono } from 'hono'
import { docControlSummary } from '#server/domain/doc-control/summary'
import { asMember } from '#server/domain/tenancy/context'
import { operation } from '#server/http/contract'
import { DocControlSummarySchema } from '~/lib/schemas/doc-control-responses'
import type { BackendEnv } from '#server/http/env'
import { requireSession } from '#server/http/session'

/** docs/doc-control.md "API": the document-control dashboard's figures. */
export const docControlSummaryRoutes = new Hono<BackendEnv>().get(
  '/api/projects/:id/doc-control/summary',
  operation({
    summary: 'Document-control figures of a project: documents by status and state, reviews, transmittals, issued vs planned',
    tag: 'Document control',
    access: 'session',
    responses: { 200: { description: 'Documents by status and state, reviews, transmittals awaiting acknowledgement, issued against planned by month.', schema: DocControlSummarySchema }, 404: 'No such project.' },
  }),
  async (c) => {
    const session = requireSession(c)
    const { db, now } = c.get('deps')
    return c.json(await asMember(db, session, now(), (ctx) => docControlSummary(ctx, c.req.param('id'))))
  },
)
