import { Hono, type Context } from 'hono'
import { z } from 'zod'
import {
  createDeliverable,
  DELIVERABLE_NUMBER_MAX,
  DELIVERABLE_TITLE_MAX,
  deleteDeliverable,
  listDeliverables,
  MILESTONE_NAME_MAX,
  MILESTONES_MAX,
  updateDeliverable,
} from '#server/domain/doc-control/deliverables'
import { exportDeliverables, importDeliverables } from '#server/domain/doc-control/deliverables-io'
import { asMember, type DomainContext } from '#server/domain/tenancy/context'
import { operation } from '#server/http/contract'
import { DeliverableImportSchema, DeliverablePageSchema, DeliverableSchema } from '~/lib/schemas/doc-control-responses'
import type { BackendEnv } from '#server/http/env'
import { idempotent } from '#server/http/idempotency'
import { Problem, problems } from '#server/http/problem'
import { requireSession } from '#server/http/session'
import { DELIVERABLE_FLAGS } from '~/lib/doc-control/types'
import { expectedRevision, STALE_WRITE } from '~/lib/schemas/edit-conflict'

/** docs/doc-control.md "Parties, matrix, deliverables, dashboard": the deliverables register, its CSV export and import. */

function run<T>(c: Context<BackendEnv>, work: (ctx: DomainContext) => Promise<T>): Promise<T> {
  const session = requireSession(c)
  const { db, now } = c.get('deps')
  return asMember(db, session, now(), work)
}

/** A CSV of a few thousand deliverables is well under this. */
const IMPORT_MAX_BYTES = 4 * 1024 * 1024

const numberField = z
  .string({ error: 'Give the deliverable’s number.' })
  .trim()
  .min(1, 'Give the deliverable’s number.')
  .max(DELIVERABLE_NUMBER_MAX, `A number is at most ${DELIVERABLE_NUMBER_MAX} characters.`)
const titleField = z
  .string({ error: 'Give the deliverable a title.' })
  .trim()
  .min(1, 'Give the deliverable a title.')
  .max(DELIVERABLE_TITLE_MAX, `A title is at most ${DELIVERABLE_TITLE_MAX} characters.`)
const partyField = z.preprocess((v) => (v === '' ? null : v), z.string().max(64).nullable())
const milestonesField = z
  .array(
    z.object({
      name: z
        .string({ error: 'Name the milestone.' })
        .trim()
        .min(1, 'Name the milestone.')
        .max(MILESTONE_NAME_MAX, `A milestone name is at most ${MILESTONE_NAME_MAX} characters.`),
      plannedDate: z.string({ error: 'Give the planned date.' }).trim().max(10, 'Write the date as YYYY-MM-DD.'),
    }),
    { error: 'milestones is a list.' },
  )
  .max(MILESTONES_MAX, `At most ${MILESTONES_MAX} milestones.`)

const NewDeliverableSchema = z.object({
  number: numberField,
  title: titleField,
  partyId: partyField.optional().transform((v) => v ?? null),
  milestones: milestonesField.optional().transform((v) => v ?? []),
})
const DeliverablePatchSchema = z.object({ number: numberField.optional(), title: titleField.optional(), partyId: partyField.optional(), milestones: milestonesField.optional(), expectedRevision })

const ListQuery = z.object({
  flag: z.enum(DELIVERABLE_FLAGS, { error: 'flag is issued, on-track, late or missing.' }).optional(),
  q: z.string().trim().max(100, 'Search with at most 100 characters.').optional(),
  page: z.coerce.number({ error: 'page is a whole number from 1.' }).int('page is a whole number from 1.').min(1, 'page is a whole number from 1.').max(10_000).default(1),
  pageSize: z.coerce.number({ error: 'pageSize is 1 to 100.' }).int('pageSize is 1 to 100.').min(1, 'pageSize is 1 to 100.').max(100, 'pageSize is 1 to 100.').default(25),
})
const ImportJson = z.object({ csv: z.string({ error: 'csv is the text of the file.' }) })

/** The import's body: the CSV itself (text/csv), or JSON `{ csv }` as the screen sends it. */
async function csvOf(c: Context<BackendEnv>): Promise<string> {
  const type = (c.req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? ''
  const text = await c.req.text()
  if (type === 'text/csv' || type === 'text/plain') return text
  if (type === 'application/json') {
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      throw new Problem(problems.badRequest('The request body is not valid JSON.'))
    }
    const result = ImportJson.safeParse(parsed)
    if (!result.success) throw new Problem(problems.badRequest('Some fields are not valid.', { csv: ['csv is the text of the file.'] }))
    return result.data.csv
  }
  throw new Problem({ status: 415, title: 'Unsupported media type', detail: 'Send the CSV as text/csv, or as JSON { csv }.', code: 'KR_UNSUPPORTED_MEDIA_TYPE' })
}

export const deliverableRoutes = new Hono<BackendEnv>()
  .get(
    '/api/projects/:id/deliverables',
    operation({
      summary: 'The deliverables register: planned against issued, flagged, filtered by flag, paged',
      tag: 'Document control',
      access: 'session',
      query: ListQuery,
      responses: { 200: { description: 'A page of deliverables, with the count of each flag.', schema: DeliverablePageSchema }, 404: 'No such project.' },
    }),
    async (c) => {
      const query = c.req.valid('query')
      return c.json(await run(c, (ctx) => listDeliverables(ctx, c.req.param('id'), query)))
    },
  )
  .post(
    '/api/projects/:id/deliverables',
    operation({
      summary: 'Add a deliverable to the register',
      tag: 'Document control',
      access: 'session',
      body: NewDeliverableSchema,
      idempotent: true,
      responses: { 201: { description: 'The deliverable.', schema: DeliverableSchema }, 400: 'Every problem of its fields.', 403: 'Not a manager of the project.', 404: 'No such project or party.' },
    }),
    idempotent,
    async (c) => c.json(await run(c, (ctx) => createDeliverable(ctx, c.req.param('id'), c.req.valid('json'))), 201),
  )
  .get(
    '/api/projects/:id/deliverables/export',
    operation({
      summary: 'The deliverables register as CSV, one row per deliverable with its plan, first issue and flag',
      tag: 'Document control',
      access: 'session',
      responses: { 200: { description: 'The CSV file.', contentType: 'text/csv' }, 404: 'No such project.' },
    }),
    async (c) => {
      const { fileName, csv } = await run(c, (ctx) => exportDeliverables(ctx, c.req.param('id')))
      return c.body(csv, 200, { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': `attachment; filename="${fileName}"` })
    },
  )
  .post(
    '/api/projects/:id/deliverables/import',
    operation({
      summary: 'Import deliverables from CSV (upsert by number)',
      description:
        'The body is the CSV (text/csv) or JSON { csv }. The first line names the columns: Number and Title, optionally Responsible party (code or name) and “Milestone: <name>” columns of planned dates (YYYY-MM-DD). Lines with problems are left out and named in errors.',
      tag: 'Document control',
      access: 'session',
      maxBodyBytes: IMPORT_MAX_BYTES,
      idempotent: true,
      responses: {
        200: { description: 'How many were created and updated, and each line’s problem.', schema: DeliverableImportSchema },
        400: 'The file has no header naming Number and Title, or too many lines.',
        403: 'Not a manager of the project.',
        404: 'No such project.',
        415: 'Neither text/csv nor JSON.',
      },
    }),
    idempotent,
    async (c) => {
      const csv = await csvOf(c)
      return c.json(await run(c, (ctx) => importDeliverables(ctx, c.req.param('id'), csv)))
    },
  )
  .patch(
    '/api/deliverables/:id',
    operation({
      summary: 'Change a deliverable',
      tag: 'Document control',
      access: 'session',
      body: DeliverablePatchSchema,
      responses: { 200: { description: 'The deliverable.', schema: DeliverableSchema }, 400: 'Every problem of its fields.', 403: 'Not a manager of the project.', 404: 'No such deliverable or party.', 409: STALE_WRITE },
    }),
    async (c) => c.json(await run(c, (ctx) => updateDeliverable(ctx, c.req.param('id'), c.req.valid('json')))),
  )
  .delete(
    '/api/deliverables/:id',
    operation({
      summary: 'Delete a deliverable',
      tag: 'Document control',
      access: 'session',
      responses: { 204: 'Deleted.', 403: 'Not a manager of the project.', 404: 'No such deliverable.' },
    }),
    async (c) => {
      await run(c, (ctx) => deleteDeliverable(ctx, c.req.param('id')))
      return c.body(null, 204)
    },
  )
