import { Hono, type Context } from 'hono'
import { z } from 'zod'
import { asAdmin } from '#server/domain/admin/context'
import { AUDIT_PAGE_MAX, AUDIT_PAGE_SIZE, type AuditFilters, auditPage, EXPORT_BATCH, listAudit, listAuditActions, recordAuditExport } from '#server/domain/admin/audit'
import { actionsCsv, csvDisposition, ENTRY_HEADER, entriesCsv } from '#server/domain/admin/audit-csv'
import { verifyAuditChain } from '#server/domain/admin/audit-verify'
import type { BackendEnv } from '#server/http/env'
import { operation } from '#server/http/contract'
import { AuditActionCountsSchema, AuditPageSchema, ChainVerificationSchema } from '~/lib/schemas/admin-responses'
import { optional, wholeNumber } from '#server/http/query'
import { requireSession } from '#server/http/session'
import { runAdmin } from './run'

/**
 * docs/admin/audit.md: the organisation's audit log (list, actions), its CSV exports (streamed)
 * and the hash-chain check. Administrators of the organisation only.
 */

const TAG = 'Administration'

const isoMoment = z.union([z.iso.date(), z.iso.datetime({ offset: true })], { error: 'Give a date (YYYY-MM-DD) or a date and time (ISO 8601).' })

const filterShape = {
  action: optional(
    z
      .string()
      .max(200, 'action is at most 200 characters.')
      .regex(/^[a-z0-9.*-]+$/i, 'action is an action name like admin.user.changed, or a prefix like admin.'),
  ),
  actorUserId: optional(z.uuid({ error: 'actorUserId is a user id.' })),
  targetType: optional(z.string().max(100, 'targetType is at most 100 characters.')),
  targetId: optional(z.string().max(200, 'targetId is at most 200 characters.')),
  from: optional(isoMoment),
  to: optional(isoMoment),
  q: optional(z.string().max(200, 'q is at most 200 characters.')),
}

const FilterQuery = z.object(filterShape)

const ListQuery = z.object({
  ...filterShape,
  limit: optional(wholeNumber('limit', AUDIT_PAGE_MAX)),
  after: optional(z.string().max(200, 'The paging cursor is not valid.')),
})

function filtersOf(query: z.output<typeof FilterQuery>): AuditFilters {
  const { action, actorUserId, targetType, targetId, from, to, q } = query
  return { action, actorUserId, targetType, targetId, from, to, q }
}

function originOf(c: Context<BackendEnv>) {
  return { ip: c.get('ip'), correlationId: c.get('correlationId') }
}

const FILTERS_DOC =
  'Filters: `action` (exact, or a prefix ending in "." such as `admin.`), `actorUserId`, `targetType`, `targetId`, `from` and `to` (ISO dates, inclusive: a date alone means the whole day, UTC), `q` (text in the action, target or the actor’s name or e-mail).'

const ENTRY_DOC = 'An entry: `{ id, chainSeq, action, actor: { id, displayName, email } | null, targetType, targetId, targetName (what the target is called now: a person’s name, a project’s title, a document’s number, a folder’s name; null when unknown), ip, correlationId, data, createdAtUtc, hash, prevHash }`.'

export const auditRoutes = new Hono<BackendEnv>()
  .get(
    '/api/admin/audit',
    operation({
      summary: 'The organisation’s audit log, newest first, filtered and paged',
      description: `${FILTERS_DOC} Paging: \`limit\` (1–200, default 50) and \`after\` (the previous page’s \`nextCursor\`). \`limit=1\` is the cheap one-row sample the admin pages fetch on entry. ${ENTRY_DOC}`,
      tag: TAG,
      access: 'admin',
      query: ListQuery,
      responses: { 200: { description: 'A page of entries, newest first.', schema: AuditPageSchema }, 400: 'A filter or the cursor is not valid (errors).', 403: 'Not an administrator.' },
    }),
    async (c) => {
      const query = c.req.valid('query')
      c.header('cache-control', 'no-store')
      return c.json(await runAdmin(c, (ctx) => listAudit(ctx, filtersOf(query), query.limit ?? AUDIT_PAGE_SIZE, query.after)))
    },
  )
  .get(
    '/api/admin/audit/export',
    operation({
      summary: 'The audit log as CSV, streamed (same filters as the list); the export is itself audited',
      description: `${FILTERS_DOC} Newest first; a header row; cells that start like a formula are prefixed with a single quote. The export is recorded (admin.audit.exported, with its filters) before the file starts.`,
      tag: TAG,
      access: 'admin',
      query: FilterQuery,
      responses: {
        200: { description: 'The CSV file (attachment, audit-YYYY-MM-DD.csv).', contentType: 'text/csv' },
        400: 'A filter is not valid (errors).',
        403: 'Not an administrator.',
      },
    }),
    async (c) => {
      const filters = filtersOf(c.req.valid('query'))
      const session = requireSession(c)
      const { db, now } = c.get('deps')
      const log = c.get('log')
      await runAdmin(c, (ctx) => recordAuditExport(ctx, 'entries', filters, originOf(c)))
      const encoder = new TextEncoder()
      let started = false
      let afterSeq: number | undefined
      // Each batch is its own short tenant transaction (the admin check included): nothing holds a
      // connection while the client reads, and memory stays at one batch however long the log.
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (!started) {
            started = true
            controller.enqueue(encoder.encode(ENTRY_HEADER))
            return
          }
          try {
            const page = await asAdmin(db, session, now(), (ctx) => auditPage(ctx, filters, EXPORT_BATCH, afterSeq))
            if (page.items.length > 0) controller.enqueue(encoder.encode(entriesCsv(page.items)))
            if (page.nextSeq === null) controller.close()
            else afterSeq = page.nextSeq
          } catch (error) {
            log.error({ err: error }, 'audit export failed mid-stream')
            controller.error(error)
          }
        },
      })
      return c.body(body, 200, {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': csvDisposition('audit', now()),
        'cache-control': 'no-store',
      })
    },
  )
  .get(
    '/api/admin/audit/actions',
    operation({
      summary: 'The actions in the audit log, with how many entries each and when it last happened',
      description: `By action name. The same filters as the list narrow what is counted. ${FILTERS_DOC}`,
      tag: TAG,
      access: 'admin',
      query: FilterQuery,
      responses: { 200: { description: 'Each action with its count and latest time.', schema: AuditActionCountsSchema }, 400: 'A filter is not valid (errors).', 403: 'Not an administrator.' },
    }),
    async (c) => {
      const filters = filtersOf(c.req.valid('query'))
      c.header('cache-control', 'no-store')
      return c.json({ items: await runAdmin(c, (ctx) => listAuditActions(ctx, filters)) })
    },
  )
  .get(
    '/api/admin/audit/actions/export',
    operation({
      summary: 'The actions with their counts as CSV; the export is itself audited',
      tag: TAG,
      access: 'admin',
      query: FilterQuery,
      responses: {
        200: { description: 'The CSV file (attachment, audit-actions-YYYY-MM-DD.csv): action, count, lastAtUtc.', contentType: 'text/csv' },
        400: 'A filter is not valid (errors).',
        403: 'Not an administrator.',
      },
    }),
    async (c) => {
      const filters = filtersOf(c.req.valid('query'))
      const actions = await runAdmin(c, async (ctx) => {
        await recordAuditExport(ctx, 'actions', filters, originOf(c))
        return listAuditActions(ctx, filters)
      })
      return c.body(actionsCsv(actions), 200, {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': csvDisposition('audit-actions', c.get('deps').now()),
        'cache-control': 'no-store',
      })
    },
  )
  .get(
    '/api/admin/audit/verify',
    operation({
      summary: 'Check the audit hash chain: the first broken link, if any',
      description:
        'Walks the organisation’s entries in chain order, recomputing each hash in the database and checking each link, the numbering and the chain head. Answers `{ ok, checked, headSeq, firstBroken: { chainSeq, id, reason, detail } | null, verifiedAtUtc }`, reason one of hash-mismatch, link-mismatch, missing-entry, head-mismatch. A GET because it changes nothing the caller asked about: like an export, it only leaves a record that the check was run (admin.audit.verified, written after the walk). docs/admin/audit.md says what the check proves and what it cannot.',
      tag: TAG,
      access: 'admin',
      responses: { 200: { description: 'The result (also when the chain is broken: look at ok).', schema: ChainVerificationSchema }, 403: 'Not an administrator.' },
    }),
    async (c) => {
      c.header('cache-control', 'no-store')
      return c.json(await runAdmin(c, (ctx) => verifyAuditChain(ctx, originOf(c))))
    },
  )
