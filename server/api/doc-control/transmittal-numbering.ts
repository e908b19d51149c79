import { Hono } from 'hono'
import { getTransmittalNumbering, putTransmittalNumbering } from '#server/domain/doc-control/transmittal-numbering'
import { asMember } from '#server/domain/tenancy/context'
import { operation } from '#server/http/contract'
import type { BackendEnv } from '#server/http/env'
import { requireSession } from '#server/http/session'
import { STALE_WRITE } from '~/lib/schemas/edit-conflict'
import { TransmittalNumberingPutSchema, TransmittalNumberingSchema } from '~/lib/schemas/transmittal-numbering'

/** docs/doc-control.md "Transmittal numbers": a project's format for the numbers of the transmittals it starts. */
export const transmittalNumberingRoutes = new Hono<BackendEnv>()
  .get(
    '/api/projects/:projectId/transmittal-numbering',
    operation({
      summary: 'How the project numbers its transmittals, and the number the next one takes',
      tag: 'Transmittals',
      access: 'session',
      responses: { 200: { description: 'The format and the next number.', schema: TransmittalNumberingSchema }, 404: 'No such project.' },
    }),
    async (c) => {
      const session = requireSession(c)
      const { db, now } = c.get('deps')
      return c.json(await asMember(db, session, now(), (ctx) => getTransmittalNumbering(ctx, c.req.param('projectId'))))
    },
  )
  .put(
    '/api/projects/:projectId/transmittal-numbering',
    operation({
      summary: 'Set the format of the project’s transmittal numbers ({project}, {seq:N}, {year}); numbers already given stay',
      tag: 'Transmittals',
      access: 'session',
      body: TransmittalNumberingPutSchema,
      responses: {
        200: { description: 'The format now kept, and the number the next transmittal takes.', schema: TransmittalNumberingSchema },
        400: 'The format has problems (field errors on format).',
        403: 'Not a manager of the project, or read-only.',
        404: 'No such project.',
        409: `The project is archived. ${STALE_WRITE}`,
      },
    }),
    async (c) => {
      const session = requireSession(c)
      const { db, now } = c.get('deps')
      return c.json(await asMember(db, session, now(), (ctx) => putTransmittalNumbering(ctx, c.req.param('projectId'), c.req.valid('json'))))
    },
  )
