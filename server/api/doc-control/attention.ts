import { Hono } from 'hono'
import { z } from 'zod'
import { docControlAttention } from '#server/domain/doc-control/attention'
import { asMember } from '#server/domain/tenancy/context'
import { operation } from '#server/http/contract'
import type { BackendEnv } from '#server/http/env'
import { requireSession } from '#server/http/session'
import type { DocControlAttention } from '~/lib/doc-control/types'

const count = z.number().int().min(0)

export const DocControlAttentionSchema = z.object({
  reviewsWaitingCount: count,
  transmittalsToAcknowledgeCount: count,
  overdueDeliverables: z.object({ count, projects: z.array(z.object({ projectId: z.uuid(), count })) }),
}) satisfies z.ZodType<DocControlAttention>

/** docs/doc-control.md "API": what waits for the caller in document control, for the dashboard. */
export const docControlAttentionRoutes = new Hono<BackendEnv>().get(
  '/api/doc-control/attention',
  operation({
    summary: 'My review tasks waiting, transmittals to acknowledge, and overdue deliverables of the projects I can open',
    tag: 'Document control',
    access: 'session',
    responses: { 200: { description: 'Counts of what waits for the caller.', schema: DocControlAttentionSchema } },
  }),
  async (c) => {
    const session = requireSession(c)
    const { db, now } = c.get('deps')
    return c.json(await asMember(db, session, now(), (ctx) => docControlAttention(ctx)))
  },
)
