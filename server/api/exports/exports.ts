import { Readable } from 'node:stream'
import { Hono, type Context } from 'hono'
import { z } from 'zod'
import { selectionOf } from '#server/domain/exports/items'
import { type PdfDeps, type PdfExport, punchListPdfExport, reportPdfExport } from '#server/domain/exports/pdf-exports'
import { dispositionOf } from '#server/domain/formats/csv'
import { createPdf } from '#server/domain/formats/pdf'
import { storeImages } from '#server/domain/exports/pictures'
import { blobStoreFor } from '#server/storage/blob-stores'
import { writeCoverSheet } from '#server/domain/doc-control/cover-sheet-pdf'
import { transmittalContents } from '#server/domain/doc-control/packaging'
import { findTransmittal, readAccess } from '#server/domain/doc-control/transmittal-views'
import { getSite } from '#server/domain/settings/site'
import { Problem, problems } from '#server/http/problem'
import { TransmittalListQuery } from '~/lib/schemas/transmittals'
import { SearchQuerySchema } from '#server/api/documents/search'
import { itemsSpreadsheetExport, registerSpreadsheetExport, transmittalsSpreadsheetExport } from '#server/domain/exports/spreadsheets'
import { contentTypeOf, MEDIA_TYPES } from '#server/domain/formats/table'
import { asMember } from '#server/domain/tenancy/context'
import { operation } from '#server/http/contract'
import { optional } from '#server/http/query'
import type { BackendEnv } from '#server/http/env'
import { requireSession } from '#server/http/session'
import { preferredLocale } from '~/lib/format'
import { GROUP_BYS } from '~/lib/reporting/items-query'

/**
 * docs/exports.md: the items screen's selection as a spreadsheet or a punch list PDF, and a report as a PDF. The query is the screen's own
 * (project, report, package, status, assignee, overdue, verifier: app/lib/reporting/items-query.ts),
 * so the link on the screen is its address with another path, and what one sees is what one gets.
 */

const filterShape = {
  project: optional(z.uuid({ error: 'project must be a project id.' })),
  report: optional(z.uuid({ error: 'report must be a report id.' })),
  package: optional(z.string().max(100, 'package must be at most 100 characters.')),
  status: optional(z.enum(['open', 'close_requested'], { error: 'status must be open or close_requested.' })),
  assignee: optional(z.union([z.literal('me'), z.uuid()], { error: 'assignee must be a member’s id or me.' })),
  overdue: optional(z.enum(['1', 'true', 'yes', 'on'], { error: 'overdue must be 1 when set.' })),
  verifier: optional(z.literal('me', { error: 'verifier can only be me.' })),
}

const formatShape = { format: z.enum(['csv', 'xlsx'], { error: 'format must be csv or xlsx.' }) }

export const ItemsExportQuery = z.object({ ...formatShape, ...filterShape })

/** The documents screen's search, without its paging: the register is every page. */
export const RegisterExportQuery = SearchQuerySchema.omit({ page: true, pageSize: true }).extend(formatShape)

export const TransmittalsExportQuery = TransmittalListQuery.omit({ page: true, pageSize: true }).extend(formatShape)

export const PunchListQuery = z.object({ ...filterShape, group: optional(z.enum(GROUP_BYS, { error: `group must be one of ${GROUP_BYS.join(', ')}.` })) })


/** A spreadsheet's stream as the web stream a response takes. */
function webStreamOf(stream: Readable): ReadableStream<Uint8Array> {
  return Readable.toWeb(stream) as ReadableStream<Uint8Array>
}

/** Stream headers shared by every download: never cached, saved under its name. */
export function downloadHeaders(mediaType: string, disposition: string): Record<string, string> {
  return { 'content-type': mediaType, 'content-disposition': disposition, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' }
}

function pdfDeps(c: Context<BackendEnv>): PdfDeps {
  const { db, now, config } = c.get('deps')
  return { db, now, publicUrl: config.publicUrl, images: storeImages(blobStoreFor(config)) }
}

/** A PDF written page by page to the response; a failure mid-way ends the stream with an error (the browser shows a failed download). */
function streamPdf(c: Context<BackendEnv>, made: PdfExport): Response {
  const log = c.get('log')
  made.write().catch((error: unknown) => {
    log.error({ err: error }, `${made.name} PDF failed mid-stream`)
    made.doc.destroy(error instanceof Error ? error : new Error(String(error)))
  })
  return c.body(Readable.toWeb(made.doc) as ReadableStream<Uint8Array>, 200, downloadHeaders(MEDIA_TYPES.pdf, dispositionOf(made.name, 'pdf', c.get('deps').now())))
}

export const exportRoutes = new Hono<BackendEnv>()
  .get(
  '/api/items/outstanding/export',
  operation({
    summary: 'The items screen’s selection as a spreadsheet (CSV or XLSX), streamed',
    description:
      'Every outstanding item the screen’s filters select (all pages, newest first), with every column the screen can show plus location, creator, dates and a link. The query is the screen’s: project, report, package, status, assignee (an id or me), overdue, verifier=me. An unknown or another organisation’s project or report is a 404. CSV is UTF-8 with a byte-order mark; a cell that starts like a formula is prefixed with a single quote.',
    tag: 'Items',
    access: 'session',
    query: ItemsExportQuery,
    responses: {
      200: { description: 'The file (attachment, items-YYYY-MM-DD.csv or .xlsx).', contentType: [MEDIA_TYPES.csv, MEDIA_TYPES.xlsx] },
      400: 'A filter is not valid (errors).',
      404: 'No such project or report in this organisation.',
    },
  }),
  async (c) => {
    const session = requireSession(c)
    const { db, now, config } = c.get('deps')
    const { format, ...filters } = c.req.valid('query')
    // The export job writes the same file (above EXPORT_JOB_ITEMS items, the screen starts one instead).
    const made = await itemsSpreadsheetExport({ db, now, publicUrl: config.publicUrl }, session, selectionOf(filters, session.userId), format)
    return c.body(webStreamOf(made.doc), 200, downloadHeaders(contentTypeOf(format), dispositionOf(made.name, format, now())))
  },
)
  .get(
    '/api/items/outstanding/punch-list',
    operation({
      summary: 'The items screen’s selection as a punch list PDF, streamed',
      description:
        'Every outstanding item the screen’s filters select (the same query as the spreadsheet export), grouped as the screen groups them (group: none, project, report, package, status, assignee), one compact row each: the first photo’s thumbnail (markup applied), number and title (links to the item’s page), status, priority, assignee, due date, next action, project, report and location; the organisation’s logo at the top. Images carry no camera metadata. Dates in the reader’s language (Accept-Language) and the organisation’s time zone; fonts embedded (Latin, Greek, Cyrillic, Japanese and the CJK ideographs). Footer: the list’s name and the page number.',
      tag: 'Items',
      access: 'session',
      query: PunchListQuery,
      responses: {
        200: { description: 'The PDF (attachment, punch-list-YYYY-MM-DD.pdf).', contentType: MEDIA_TYPES.pdf },
        400: 'A filter is not valid (errors).',
        404: 'No such project or report in this organisation.',
      },
    }),
    async (c) => {
      const session = requireSession(c)
      const { group, ...filters } = c.req.valid('query')
      const made = await punchListPdfExport(pdfDeps(c), session, selectionOf(filters, session.userId), group, preferredLocale(c.req.header('accept-language')))
      return streamPdf(c, made)
    },
  )
  .get(
    '/api/reports/:id/pdf',
    operation({
      summary: 'The report as a PDF, streamed: a cover, then every item with its responses and close confirmation',
      description:
        'Cover: the organisation’s logo and name, report, project, item counts, who started the report and who made the PDF, when. Then each item, oldest first: number and title (a link to the item’s page), status, priority, assignee, due date, package, next action, location, description, who recorded it and when, the responses in order with who and when (a close confirmed or rejected says so), when it closed and who confirmed it, the drawing it is pinned on with its pin, and its photos (markup applied, two per row, numbered and captioned; no camera metadata). Dates in the reader’s language (Accept-Language) and the organisation’s time zone; fonts embedded. Footer: the report’s name and the page number.',
      tag: 'Reports',
      access: 'session',
      responses: {
        200: { description: 'The PDF (attachment, report-YYYY-MM-DD.pdf).', contentType: MEDIA_TYPES.pdf },
        404: 'No such report in this organisation.',
      },
    }),
    async (c) => {
      const session = requireSession(c)
      const made = await reportPdfExport(pdfDeps(c), session, c.req.param('id'), preferredLocale(c.req.header('accept-language')))
      return streamPdf(c, made)
    },
  )
  .get(
    '/api/documents/register/export',
    operation({
      summary: 'The document register as a spreadsheet (CSV or XLSX), streamed: a project, a folder or a search',
      description:
        'Every document the same search as GET /api/documents/search finds (projectId, folderId, q, discipline, status, state; all pages), that the caller may see: number, title, current revision, suitability, state, discipline, type, when the current revision was issued, when the document changed, one column per metadata field of the project searched (or the folder’s project), and a link. A project or folder the caller cannot reach is a 404.',
      tag: 'Documents',
      access: 'session',
      query: RegisterExportQuery,
      responses: {
        200: { description: 'The file (attachment, document-register-YYYY-MM-DD.csv or .xlsx).', contentType: [MEDIA_TYPES.csv, MEDIA_TYPES.xlsx] },
        400: 'A filter is not valid (errors).',
        404: 'No such project or folder, or not one the caller may see.',
      },
    }),
    async (c) => {
      const session = requireSession(c)
      const { db, now, config } = c.get('deps')
      const { format, ...query } = c.req.valid('query')
      // The export job writes the same file (above EXPORT_JOB_ITEMS documents, the screen starts one instead).
      const made = await registerSpreadsheetExport({ db, now, publicUrl: config.publicUrl }, session, query, format)
      return c.body(webStreamOf(made.doc), 200, downloadHeaders(contentTypeOf(format), dispositionOf(made.name, format, now())))
    },
  )
  .get(
    '/api/projects/:projectId/transmittals/export',
    operation({
      summary: 'A project’s transmittals as a spreadsheet (CSV or XLSX), one row per recipient: sent, to whom, acknowledged when',
      description:
        'The transmittals the caller may read (the same rule and status filter as GET /api/projects/{projectId}/transmittals; all pages, newest first): number, subject, purpose, status, when sent and by whom, the response due date, how many documents, and per recipient their name, e-mail, status and when they opened, downloaded, acknowledged and responded, and the response. Times in UTC (ISO 8601).',
      tag: 'Transmittals',
      access: 'session',
      query: TransmittalsExportQuery,
      responses: {
        200: { description: 'The file (attachment, transmittals-YYYY-MM-DD.csv or .xlsx).', contentType: [MEDIA_TYPES.csv, MEDIA_TYPES.xlsx] },
        400: 'Invalid status or format (errors).',
        404: 'No such project, or not one the caller may see.',
      },
    }),
    async (c) => {
      const session = requireSession(c)
      const { db, now, config } = c.get('deps')
      const { format, ...query } = c.req.valid('query')
      // The export job writes the same file (above EXPORT_JOB_ITEMS transmittals, the screen starts one instead).
      const made = await transmittalsSpreadsheetExport({ db, now, publicUrl: config.publicUrl }, session, { projectId: c.req.param('projectId'), ...query }, format)
      return c.body(webStreamOf(made.doc), 200, downloadHeaders(contentTypeOf(format), dispositionOf(made.name, format, now())))
    },
  )
  .get(
    '/api/transmittals/:id/cover-sheet',
    operation({
      summary: 'The transmittal’s cover sheet as a PDF: number, project, from, to, purpose, message, and the documents with revision and suitability',
      description:
        'The same sheet every transmittal package ZIP holds (00-transmittal.pdf), for whoever may read the transmittal (as GET /api/transmittals/{id}). Times in the reader’s language (Accept-Language) and the organisation’s time zone; fonts embedded.',
      tag: 'Transmittals',
      access: 'session',
      responses: {
        200: { description: 'The PDF (attachment, {transmittal number}.pdf).', contentType: MEDIA_TYPES.pdf },
        404: 'No such transmittal, or not one the caller may read.',
      },
    }),
    async (c) => {
      const session = requireSession(c)
      const { db, now } = c.get('deps')
      const id = c.req.param('id')
      const { contents, site } = await asMember(db, session, now(), async (ctx) => {
        // Whoever may read the transmittal, without recording an opening: the sheet is not the transmittal.
        await readAccess(ctx, await findTransmittal(ctx, id))
        return { contents: await transmittalContents(ctx, id), site: await getSite(ctx) }
      })
      if (!contents) throw new Problem(problems.notFound('The transmittal was not found.'))
      const at = now()
      const clock = { now: at, locale: preferredLocale(c.req.header('accept-language')), timeZone: site.timeZone }
      const doc = await createPdf({ title: `Transmittal ${contents.number}`, author: contents.sentBy ?? site.name, footer: `Transmittal ${contents.number}`, now: at })
      writeCoverSheet(doc, contents, clock)
      doc.end()
      return c.body(Readable.toWeb(doc) as ReadableStream<Uint8Array>, 200, downloadHeaders(MEDIA_TYPES.pdf, dispositionOf(contents.number, 'pdf')))
    },
  )
