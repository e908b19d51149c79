import { Hono, type Context } from 'hono'
import { acknowledgeTransmittal, getTransmittal, respondToTransmittal } from '#server/domain/doc-control/transmittal-receipts'
import {
  closeTransmittal,
  createTransmittal,
  discardTransmittal,
  getTransmittalStatus,
  listTransmittals,
  putTransmittalRecipients,
  putTransmittalRevisions,
  revokeTransmittalLink,
  sendTransmittal,
  updateTransmittal,
} from '#server/domain/doc-control/transmittals'
import { asMember, type DomainContext } from '#server/domain/tenancy/context'
import type { BackendEnv } from '#server/http/env'
import { operation } from '#server/http/contract'
import { STALE_WRITE } from '~/lib/schemas/edit-conflict'
import { TransmittalPageSchema, TransmittalSchema, TransmittalStatusSchema } from '~/lib/schemas/doc-control-responses'
import { idempotent } from '#server/http/idempotency'
import { requireSession } from '#server/http/session'
import { TransmittalSendSchema } from '~/lib/schemas/rule-book'
import {
  TransmittalCreateSchema,
  TransmittalListQuery,
  TransmittalPatchSchema,
  TransmittalRecipientsSchema,
  TransmittalRespondSchema,
  TransmittalRevisionsSchema,
} from '~/lib/schemas/transmittals'

/** docs/doc-control.md "Transmittals" and "Transmittal states". Packaging: ./packages.ts. */

function run<T>(c: Context<BackendEnv>, work: (ctx: DomainContext) => Promise<T>): Promise<T> {
  const session = requireSession(c)
  const { db, now } = c.get('deps')
  return asMember(db, session, now(), work)
}

const TAG = 'Transmittals'
const draftOnly = { 403: 'Not its sender, or read-only.', 404: 'No such transmittal.', 409: 'Sent already (KR_TRANSMITTAL_STATE).' }
/** A draft's changes: also refused when someone saved the draft since it was opened. */
const draftChange = { ...draftOnly, 409: `Sent already (KR_TRANSMITTAL_STATE). ${STALE_WRITE}` }
const receipt = { 403: 'Not a recipient.', 404: 'No such transmittal.', 409: 'Closed, or done already (KR_TRANSMITTAL_STATE).' }

export const transmittalRoutes = new Hono<BackendEnv>()
  .get(
    '/api/projects/:projectId/transmittals',
    operation({
      summary: 'A project’s transmittals the caller may read, newest first',
      tag: TAG,
      access: 'session',
      query: TransmittalListQuery,
      responses: { 200: { description: 'A page of transmittals.', schema: TransmittalPageSchema }, 400: 'Invalid status or paging.', 404: 'No such project.' },
    }),
    async (c) => c.json(await run(c, (ctx) => listTransmittals(ctx, c.req.param('projectId'), c.req.valid('query')))),
  )
  .post(
    '/api/projects/:projectId/transmittals',
    operation({
      summary: 'Start a transmittal (a draft, numbered {project code}-TRN-000001)',
      tag: TAG,
      access: 'session',
      body: TransmittalCreateSchema,
      idempotent: true,
      responses: {
        201: { description: 'The draft.', schema: TransmittalSchema },
        400: 'Invalid fields, or both revisions and a set.',
        403: 'Read-only.',
        404: 'No such project, revision or set.',
        409: 'The project is archived.',
        422: 'Two revisions of one document.',
      },
    }),
    idempotent,
    async (c) => c.json(await run(c, (ctx) => createTransmittal(ctx, c.req.param('projectId'), c.req.valid('json'))), 201),
  )
  .get(
    '/api/transmittals/:transmittalId',
    operation({
      summary: 'One transmittal (a recipient’s first read records that they opened it)',
      tag: TAG,
      access: 'session',
      responses: { 200: { description: 'The transmittal: every recipient’s tracking for its sender, the caller’s own in `mine`.', schema: TransmittalSchema }, 404: 'No such transmittal.' },
    }),
    async (c) => c.json(await run(c, (ctx) => getTransmittal(ctx, c.req.param('transmittalId')))),
  )
  .patch(
    '/api/transmittals/:transmittalId',
    operation({
      summary: 'Change a draft’s subject, purpose, message, response date or wizard step',
      tag: TAG,
      access: 'session',
      body: TransmittalPatchSchema,
      responses: { 200: { description: 'The draft.', schema: TransmittalSchema }, 400: 'Invalid fields.', ...draftChange },
    }),
    async (c) => c.json(await run(c, (ctx) => updateTransmittal(ctx, c.req.param('transmittalId'), c.req.valid('json')))),
  )
  .delete(
    '/api/transmittals/:transmittalId',
    operation({
      summary: 'Discard a draft (its sender); a sent transmittal is never deleted',
      tag: TAG,
      access: 'session',
      responses: { 204: 'Discarded.', ...draftOnly },
    }),
    async (c) => {
      await run(c, (ctx) => discardTransmittal(ctx, c.req.param('transmittalId')))
      return c.body(null, 204)
    },
  )
  .put(
    '/api/transmittals/:transmittalId/revisions',
    operation({
      summary: 'Replace a draft’s revisions (one per document)',
      tag: TAG,
      access: 'session',
      body: TransmittalRevisionsSchema,
      responses: { 200: { description: 'The draft.', schema: TransmittalSchema }, 400: 'Invalid revision ids.', ...draftChange, 422: 'Two revisions of one document.' },
    }),
    async (c) => {
      const { revisionIds, expectedRevision } = c.req.valid('json')
      return c.json(await run(c, (ctx) => putTransmittalRevisions(ctx, c.req.param('transmittalId'), revisionIds, expectedRevision)))
    },
  )
  .put(
    '/api/transmittals/:transmittalId/recipients',
    operation({
      summary: 'Replace a draft’s recipients: people, and parties (each standing for its people)',
      tag: TAG,
      access: 'session',
      body: TransmittalRecipientsSchema,
      responses: { 200: { description: 'The draft.', schema: TransmittalSchema }, 400: 'Invalid ids.', ...draftChange, 404: 'No such transmittal, member or party.', 422: 'A member who is not active.' },
    }),
    async (c) => c.json(await run(c, (ctx) => putTransmittalRecipients(ctx, c.req.param('transmittalId'), c.req.valid('json')))),
  )
  .post(
    '/api/transmittals/:transmittalId/send',
    operation({
      summary: 'Send a draft: mail to each recipient',
      description:
        'The rule book checks each revision’s suitability against the purpose (e.g. S3 “For construction”): when one does not fit, the first send answers 409 KR_PURPOSE_UNCONFIRMED with the warnings; sending again with `confirmPurpose: true` sends it and keeps the warnings and the confirmation on the transmittal (`purposeCheck`).',
      tag: TAG,
      access: 'session',
      idempotent: true,
      body: TransmittalSendSchema,
      responses: {
        200: { description: 'The sent transmittal.', schema: TransmittalSchema },
        ...draftOnly,
        409: 'Sent already (KR_TRANSMITTAL_STATE); or a suitability that does not fit the purpose, not yet confirmed (KR_PURPOSE_UNCONFIRMED, the warnings in errors.confirmPurpose).',
        422: 'What is missing, in errors: subject, revisions, recipients (KR_TRANSMITTAL_INCOMPLETE).',
      },
    }),
    idempotent,
    async (c) => {
      const { publicUrl, sessionSecret } = c.get('deps').config
      const { confirmPurpose } = c.req.valid('json')
      return c.json(await run(c, (ctx) => sendTransmittal(ctx, c.req.param('transmittalId'), { publicUrl, linkSecret: sessionSecret, confirmPurpose })))
    },
  )
  .get(
    '/api/transmittals/:transmittalId/status',
    operation({
      summary: 'The transmittal status (spec §3) and its recipients’',
      tag: TAG,
      access: 'session',
      responses: { 200: { description: 'Its status and each recipient’s tracking.', schema: TransmittalStatusSchema }, 404: 'No such transmittal.' },
    }),
    async (c) => c.json(await run(c, (ctx) => getTransmittalStatus(ctx, c.req.param('transmittalId')))),
  )
  .post(
    '/api/transmittals/:transmittalId/acknowledge',
    operation({ summary: 'Acknowledge receipt (a recipient)', tag: TAG, access: 'session', responses: { 200: { description: 'The transmittal.', schema: TransmittalSchema }, ...receipt } }),
    async (c) => c.json(await run(c, (ctx) => acknowledgeTransmittal(ctx, c.req.param('transmittalId')))),
  )
  .post(
    '/api/transmittals/:transmittalId/respond',
    operation({
      summary: 'Respond (a recipient; acknowledges too)',
      tag: TAG,
      access: 'session',
      body: TransmittalRespondSchema,
      responses: { 200: { description: 'The transmittal.', schema: TransmittalSchema }, 400: 'No response.', ...receipt },
    }),
    async (c) => c.json(await run(c, (ctx) => respondToTransmittal(ctx, c.req.param('transmittalId'), c.req.valid('json').response))),
  )
  .post(
    '/api/transmittals/:transmittalId/links/:linkId/revoke',
    operation({
      summary: 'Revoke an outside recipient’s link (the sender): it answers 404 from now on',
      description: 'What the contact viewed, downloaded and acknowledged before stays recorded. Revoking twice is the same (docs/decisions/024-transmittal-links.md).',
      tag: TAG,
      access: 'session',
      responses: {
        200: { description: 'The transmittal.', schema: TransmittalSchema },
        403: 'Not its sender, or read-only.',
        404: 'No such transmittal, or no such link of it.',
        409: 'A draft (KR_TRANSMITTAL_STATE).',
      },
    }),
    async (c) => c.json(await run(c, (ctx) => revokeTransmittalLink(ctx, c.req.param('transmittalId'), c.req.param('linkId')))),
  )
  .post(
    '/api/transmittals/:transmittalId/close',
    operation({
      summary: 'Close a sent transmittal (its sender)',
      tag: TAG,
      access: 'session',
      responses: { 200: { description: 'The closed transmittal.', schema: TransmittalSchema }, 403: 'Not its sender, or read-only.', 404: 'No such transmittal.', 409: 'A draft, or closed already.' },
    }),
    async (c) => c.json(await run(c, (ctx) => closeTransmittal(ctx, c.req.param('transmittalId')))),
  )
