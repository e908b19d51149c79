import { Hono, type Context } from 'hono'
import { z } from 'zod'
import { estimateExport, exportDownload, getExportJob, listExportJobs, retryExportJob, startExportJob } from '#server/domain/exports/export-jobs'
import { MEDIA_TYPES } from '#server/domain/formats/table'
import { cursorParam, decodeCursor, limitParam } from '#server/domain/tenancy/paging'
import { asMember, type DomainContext } from '#server/domain/tenancy/context'
import { operation } from '#server/http/contract'
import { optional } from '#server/http/query'
import type { BackendEnv } from '#server/http/env'
import { idempotent } from '#server/http/idempotency'
import { requireSession } from '#server/http/session'
import { nudgeExports } from '#server/jobs/export-jobs'
import { EXPORT_JOB_KINDS, type ExportJobKind, type ExportSubject, exportSubjectOf } from '~/lib/exports/types'
import { TransmittalListQuery } from '~/lib/schemas/transmittals'
import { SearchQuerySchema } from '../documents/search'
import { preferredLocale } from '~/lib/format'
import { ExportEstimateSchema, ExportJobPageSchema, ExportJobSchema } from '~/lib/schemas/export-jobs'
import { serveBlob } from '../photos/serve-blob'
import { PunchListQuery } from './exports'

/**
 * docs/exports.md "Large exports as a job": how large an export is (the screens ask, and offer a
 * job above the limits), start one (202; the export job on any instance picks it up), follow it,
 * run a failed or expired one again, and download its file. A job is its owner's alone: another
 * member's or another organisation's job id is a 404, as one that does not exist; an expired link
 * is a 410.
 */

const TAG = 'Exports'
const kind = z.enum(EXPORT_JOB_KINDS, { error: `kind must be one of ${EXPORT_JOB_KINDS.join(', ')}.` })

const search = SearchQuerySchema.shape

/**
 * The document register's filters (the documents screen's search; `suitability` is its `status`)
 * and the transmittals' (`transmittalStatus`): the items screen's `status` means something else.
 */
const documentShape = {
  folder: optional(z.uuid({ error: 'folder must be a folder id.' })),
  q: search.q,
  discipline: search.discipline,
  suitability: search.status,
  state: search.state,
  transmittalStatus: TransmittalListQuery.shape.status,
}

/** Which filters each kind reads: one it does not read is refused, not ignored. */
const FILTERS_OF: Record<ExportSubject, readonly string[]> = {
  report: ['report', 'project', 'package', 'status', 'assignee', 'overdue', 'verifier', 'group'],
  items: ['project', 'report', 'package', 'status', 'assignee', 'overdue', 'verifier', 'group'],
  register: ['project', 'folder', 'q', 'discipline', 'suitability', 'state'],
  transmittals: ['project', 'transmittalStatus'],
}
const FILTERS = [...new Set(Object.values(FILTERS_OF).flat())]

function filtersFit(request: { kind: ExportJobKind } & Record<string, unknown>, context: z.RefinementCtx): void {
  const subject = exportSubjectOf(request.kind)
  const allowed = FILTERS_OF[subject]
  for (const name of FILTERS) {
    if (request[name] !== undefined && !allowed.includes(name)) {
      context.addIssue({ code: 'custom', path: [name], message: `${name} does not apply to ${request.kind}: it takes ${allowed.join(', ')}.` })
    }
  }
  if (subject === 'transmittals' && request.project === undefined) context.addIssue({ code: 'custom', path: ['project'], message: `${request.kind} needs project: the transmittals’ project.` })
}

/**
 * What to export: the kind, and its filters. A report PDF: `report`. The items screen's kinds
 * (punch list, items spreadsheets): its filters. The register: `project`, `folder` and the search.
 * Transmittals: `project` and `transmittalStatus`.
 */
const ExportShape = PunchListQuery.extend({ kind, ...documentShape })
export const ExportEstimateQuery = ExportShape.superRefine(filtersFit)
export const ExportJobRequest = ExportShape.extend({ notify: z.boolean({ error: 'notify must be true or false.' }).optional() }).superRefine(filtersFit)
const ExportJobListQuery = z.object({ limit: limitParam, after: cursorParam })

function run<T>(c: Context<BackendEnv>, work: (ctx: DomainContext) => Promise<T>): Promise<T> {
  const session = requireSession(c)
  const { db, now } = c.get('deps')
  return asMember(db, session, now(), work)
}

function limitsOf(c: Context<BackendEnv>) {
  return c.get('deps').config.exportJobs
}

export const exportJobRoutes = new Hono<BackendEnv>()
  .get(
    '/api/exports/estimate',
    operation({
      summary: 'How large an export would be, and whether it runs as a job',
      description:
        'kind=report-pdf with report={id}; kind=punch-list-pdf, items-csv or items-xlsx with the items screen’s filters; kind=register-csv or register-xlsx with project, folder, q, discipline, suitability and state (the documents screen’s search); kind=transmittals-csv or transmittals-xlsx with project and transmittalStatus. A filter the kind does not read is a 400. Counts what the caller may read (items, documents or transmittals, and for a report the photos); asJob is true above the instance’s limits (EXPORT_JOB_ITEMS, 200 rows; EXPORT_JOB_PHOTOS, 400 photos): the screens then start a job instead of streaming the file.',
      tag: TAG,
      access: 'session',
      query: ExportEstimateQuery,
      responses: { 200: { description: 'The counts and the decision.', schema: ExportEstimateSchema }, 404: 'No such report or project in this organisation.' },
    }),
    async (c) => {
      const request = c.req.valid('query')
      const estimate = await run(c, (ctx) => estimateExport(ctx, request, limitsOf(c)))
      c.header('cache-control', 'no-store')
      return c.json({ kind: estimate.kind, items: estimate.items, photos: estimate.photos, asJob: estimate.asJob, limits: estimate.limits })
    },
  )
  .get(
    '/api/exports',
    operation({
      summary: 'The caller’s own export jobs (“My exports”), newest first, a page at a time',
      description:
        'Every export job the caller started in this organisation, newest start first (one run again counts from its new start): its state, progress, size, and the download link while it is valid. Only the caller’s: another member’s jobs, even for an administrator, never appear. Page with limit (1–100, 25 by default) and after=nextCursor.',
      tag: TAG,
      access: 'session',
      query: ExportJobListQuery,
      responses: { 200: { description: 'A page of the caller’s jobs.', schema: ExportJobPageSchema }, 400: 'A limit or cursor that is not valid.' },
    }),
    async (c) => {
      const { limit, after } = c.req.valid('query')
      const cursor = decodeCursor(after)
      c.header('cache-control', 'no-store')
      return c.json(await run(c, (ctx) => listExportJobs(ctx, { limit, after: cursor })))
    },
  )
  .post(
    '/api/exports',
    operation({
      summary: 'Start an export as a background job (a report PDF, a punch list PDF, or a spreadsheet of items, of the document register or of transmittals)',
      description:
        'Queues the export as the caller’s job (kind report-pdf with report={id}; punch-list-pdf, items-csv or items-xlsx with the items screen’s filters, the spreadsheets with the columns of GET /api/items/outstanding/export; register-csv or register-xlsx with the filters of GET /api/documents/register/export, its status named suitability and its projectId project, folderId folder; transmittals-csv or transmittals-xlsx with project and transmittalStatus, the columns of GET /api/projects/{projectId}/transmittals/export): it is read as the caller (what they may see and nothing else), written to a staging file and offered only once complete. notify: mail the caller when it is ready or failed (queued in the outbox, sent when mail is set up). Follow it with GET /api/exports/{id}; the hub tells the caller’s own connections of its progress (EntityChanged, entityType ExportJob).',
      tag: TAG,
      access: 'session',
      idempotent: true,
      body: ExportJobRequest,
      responses: { 202: { description: 'The job, queued.', schema: ExportJobSchema }, 404: 'No such report or project in this organisation.' },
    }),
    idempotent,
    async (c) => {
      const request = c.req.valid('json')
      const locale = preferredLocale(c.req.header('accept-language'))
      const job = await run(c, (ctx) => startExportJob(ctx, request, locale, limitsOf(c)))
      nudgeExports(requireSession(c).tenantId)
      c.header('location', `/api/exports/${job.id}`)
      return c.json(job, 202)
    },
  )
  .get(
    '/api/exports/:id',
    operation({
      summary: 'The caller’s export job: progress (percent, items), then its download link until it expires',
      tag: TAG,
      access: 'session',
      responses: { 200: { description: 'The job.', schema: ExportJobSchema }, 404: 'No such export of the caller’s (another member’s is a 404 too).' },
    }),
    async (c) => {
      c.header('cache-control', 'no-store')
      return c.json(await run(c, (ctx) => getExportJob(ctx, c.req.param('id'))))
    },
  )
  .post(
    '/api/exports/:id/retry',
    operation({
      summary: 'Run a failed (or expired) export again, from the start',
      description: 'A job that is queued, running or ready is answered as it is.',
      tag: TAG,
      access: 'session',
      idempotent: true,
      responses: { 202: { description: 'The job, queued again (or as it is).', schema: ExportJobSchema }, 404: 'No such export of the caller’s.' },
    }),
    idempotent,
    async (c) => {
      const { job, queued } = await run(c, (ctx) => retryExportJob(ctx, c.req.param('id')))
      if (queued) nudgeExports(requireSession(c).tenantId)
      c.header('location', `/api/exports/${job.id}`)
      return c.json(job, 202)
    },
  )
  .get(
    '/api/exports/:id/download',
    operation({
      summary: 'The export’s file, for its owner only, until its link expires (Range supported)',
      tag: TAG,
      access: 'session',
      responses: {
        200: { description: 'The file (attachment): a PDF, or for the -csv and -xlsx kinds the spreadsheet.', contentType: [MEDIA_TYPES.pdf, MEDIA_TYPES.csv, MEDIA_TYPES.xlsx] },
        206: { description: 'A byte range.', contentType: [MEDIA_TYPES.pdf, MEDIA_TYPES.csv, MEDIA_TYPES.xlsx] },
        302: 'Only with BLOB_STORE=s3 and S3_PRESIGN_MIN_BYTES: a whole download of at least that size, after the permission check, goes to a short-lived presigned URL of the bucket.',
        304: 'Not modified.',
        404: 'No such export of the caller’s (another member’s or another organisation’s is a 404 too).',
        409: 'Not ready yet, or failed (KR_EXPORT_NOT_READY).',
        410: 'The link expired and the file was deleted (KR_EXPORT_EXPIRED): run it again.',
        416: 'The range is past the end.',
      },
    }),
    async (c) => {
      const blob = await run(c, (ctx) => exportDownload(ctx, c.req.param('id')))
      return serveBlob(c, blob, { cache: 'no-cache', csp: 'sandbox', disposition: 'attachment', missing: 'The export’s file was not found: run it again.' })
    },
  )
