import { Hono, type Context } from 'hono'
import { createSet, deriveSet, getSet, listSets, publishSet, putSetRevisions, updateSet } from '#server/domain/doc-control/sets'
import { asMember, type DomainContext } from '#server/domain/tenancy/context'
import type { BackendEnv } from '#server/http/env'
import { operation } from '#server/http/contract'
import { DocumentSetPageSchema, DocumentSetSchema } from '~/lib/schemas/doc-control-responses'
import { idempotent } from '#server/http/idempotency'
import { requireSession } from '#server/http/session'
import { STALE_WRITE } from '~/lib/schemas/edit-conflict'
import { SetCreateSchema, SetDeriveSchema, SetListQuery, SetPatchSchema, SetPublishSchema, SetRevisionsSchema } from '~/lib/schemas/sets'

/** docs/doc-control.md "Sets": named selections of revisions, published with the set publish body (spec §3). */

function run<T>(c: Context<BackendEnv>, work: (ctx: DomainContext) => Promise<T>): Promise<T> {
  const session = requireSession(c)
  const { db, now } = c.get('deps')
  return asMember(db, session, now(), work)
}

const TAG = 'Document sets'

export const setRoutes = new Hono<BackendEnv>()
  .get(
    '/api/projects/:projectId/sets',
    operation({
      summary: 'A project’s sets, newest first',
      tag: TAG,
      access: 'session',
      query: SetListQuery,
      responses: { 200: { description: 'A page of sets, each with the revisions the caller may view.', schema: DocumentSetPageSchema }, 404: 'No such project.' },
    }),
    async (c) => c.json(await run(c, (ctx) => listSets(ctx, c.req.param('projectId'), c.req.valid('query')))),
  )
  .post(
    '/api/projects/:projectId/sets',
    operation({
      summary: 'Create a set (a draft)',
      tag: TAG,
      access: 'session',
      body: SetCreateSchema,
      idempotent: true,
      responses: {
        201: { description: 'The set.', schema: DocumentSetSchema },
        400: 'Invalid name, description or revision ids.',
        403: 'Read-only, or no edit right on a document.',
        404: 'No such project or revision.',
        409: 'The name is taken, or the project is archived.',
        422: 'Two revisions of one document.',
      },
    }),
    idempotent,
    async (c) => c.json(await run(c, (ctx) => createSet(ctx, c.req.param('projectId'), c.req.valid('json'))), 201),
  )
  .get(
    '/api/sets/:setId',
    operation({ summary: 'One set', tag: TAG, access: 'session', responses: { 200: { description: 'The set, with the revisions the caller may view.', schema: DocumentSetSchema }, 404: 'No such set.' } }),
    async (c) => c.json(await run(c, (ctx) => getSet(ctx, c.req.param('setId')))),
  )
  .patch(
    '/api/sets/:setId',
    operation({
      summary: 'Rename a draft set or change its description',
      tag: TAG,
      access: 'session',
      body: SetPatchSchema,
      responses: {
        200: { description: 'The set.', schema: DocumentSetSchema },
        400: 'Invalid fields.',
        403: 'Read-only, or no edit right on a document in it.',
        404: 'No such set.',
        409: `Published (KR_SET_PUBLISHED), or the name is taken. ${STALE_WRITE}`,
      },
    }),
    async (c) => c.json(await run(c, (ctx) => updateSet(ctx, c.req.param('setId'), c.req.valid('json')))),
  )
  .put(
    '/api/sets/:setId/revisions',
    operation({
      summary: 'Replace a draft set’s revisions (one per document)',
      tag: TAG,
      access: 'session',
      body: SetRevisionsSchema,
      responses: {
        200: { description: 'The set.', schema: DocumentSetSchema },
        400: 'Invalid revision ids.',
        403: 'Read-only, or no edit right on a document.',
        404: 'No such set or revision.',
        409: `Published (KR_SET_PUBLISHED). ${STALE_WRITE}`,
        422: 'Two revisions of one document.',
      },
    }),
    async (c) => {
      const { revisionIds, expectedRevision } = c.req.valid('json')
      return c.json(await run(c, (ctx) => putSetRevisions(ctx, c.req.param('setId'), revisionIds, expectedRevision)))
    },
  )
  .post(
    '/api/sets/:setId/publish',
    operation({
      summary: 'Publish a set: freeze it and stamp its revisions Published',
      description: 'The set publish body (spec §3): message and purpose. S-codes become A1; each document whose current revision it is becomes Published.',
      tag: TAG,
      access: 'session',
      body: SetPublishSchema,
      idempotent: true,
      responses: {
        200: { description: 'The published set.', schema: DocumentSetSchema },
        400: 'No message, or an unknown purpose.',
        403: 'Read-only, or no edit right on a document in it.',
        404: 'No such set.',
        409: 'Published already, or a revision is superseded, archived or under review.',
        422: 'The set has no revisions.',
      },
    }),
    idempotent,
    async (c) => {
      const { publicUrl, sessionSecret } = c.get('deps').config
      return c.json(await run(c, (ctx) => publishSet(ctx, c.req.param('setId'), c.req.valid('json'), { publicUrl, linkSecret: sessionSecret })))
    },
  )
  .post(
    '/api/sets/:setId/derive',
    operation({
      summary: 'Derive a new draft set with the same revisions',
      tag: TAG,
      access: 'session',
      body: SetDeriveSchema,
      idempotent: true,
      responses: { 201: { description: 'The new set.', schema: DocumentSetSchema }, 400: 'No name.', 403: 'Read-only, or no edit right on a document in it.', 404: 'No such set.', 409: 'The name is taken.' },
    }),
    idempotent,
    async (c) => c.json(await run(c, (ctx) => deriveSet(ctx, c.req.param('setId'), c.req.valid('json'))), 201),
  )
