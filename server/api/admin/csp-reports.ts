import { Hono } from 'hono'
import { z } from 'zod'
import { runAdmin } from '#server/api/admin/run'
import { listCspGroupReports, listCspGroups, listUntenantedCspGroups } from '#server/domain/observability/csp-list'
import { inScope } from '#server/domain/observability/ingest'
import { operation, pathPattern } from '#server/http/contract'
import type { BackendEnv } from '#server/http/env'
import { CSP_UNTENANTED_GROUPS } from '~/lib/admin/csp-reports'
import { CspReportGroupPageSchema, CspReportListQuerySchema, CspReportOccurrencePageSchema, CspReportPagingSchema } from '~/lib/schemas/admin-csp-reports'

/**
 * Administration › Security › CSP reports (issue 15; docs/observability.md): the violations
 * browsers reported to /telemetry/csp-reports (server/api/csp-reports.ts), grouped by directive and
 * blocked URL; administrators only. The organisation's reports in full; the reports that came
 * without an organisation (pages drawn for no one signed in: anyone's sign-in page) only as counts,
 * read after the admin check outside its transaction, the only place those rows are visible.
 */

const TAG = 'Security'
const GroupParam = z.object({ group: pathPattern(/^[A-Za-z0-9_-]+$/, 'The group’s key as the list gives it (base64url, server/http/opaque.ts); one that names no group is 404.', z.string().min(1).max(6000)) })

export const adminCspReportRoutes = new Hono<BackendEnv>()
  .get(
    '/api/admin/security/csp-reports',
    operation({
      summary: 'CSP violation reports grouped by directive and blocked URL, last seen first',
      description: `Each group: count, first and last seen, the newest report's page (sampleDocumentUrl) and source (file:line:column), and the dispositions seen. Filters: directive, since (a date or an ISO time), disposition (enforce, report); page and limit (50 by default; \`limit=1\` is the page's cheap one-row sample). \`untenanted\`: the ${CSP_UNTENANTED_GROUPS} most frequent groups of reports without an organisation, counts only (first page only).`,
      tag: TAG,
      access: 'admin',
      query: CspReportListQuerySchema,
      responses: {
        200: { description: 'A page of groups.', schema: CspReportGroupPageSchema },
        400: 'A filter or the page is not valid: see errors.',
        403: 'Not an administrator of the organisation.',
      },
    }),
    async (c) => {
      const { page, limit, ...filters } = c.req.valid('query')
      const organisation = await runAdmin(c, (ctx) => listCspGroups(ctx.tx, filters, { page, limit }))
      // After the admin check, outside its transaction; not for the one-row sample or later pages.
      const untenanted = page === 1 && limit > 1 ? await inScope(c.get('deps').db, null, (tx) => listUntenantedCspGroups(tx, filters, CSP_UNTENANTED_GROUPS)) : []
      c.header('cache-control', 'no-store')
      return c.json({ ...organisation, untenanted })
    },
  )
  .get(
    '/api/admin/security/csp-reports/groups/:group',
    operation({
      summary: 'The organisation’s reports of one group, newest first, in full',
      description: 'Each: directive, blocked URL, page, source file, line and column, disposition, sample, browser, time. Page and limit (50 by default).',
      tag: TAG,
      access: 'admin',
      params: GroupParam,
      query: CspReportPagingSchema,
      responses: {
        200: { description: 'The group and a page of its reports.', schema: CspReportOccurrencePageSchema },
        400: 'The page is not valid: see errors.',
        403: 'Not an administrator of the organisation.',
        404: 'No such group in this organisation.',
      },
    }),
    async (c) => {
      const { group } = c.req.valid('param')
      const { page, limit } = c.req.valid('query')
      c.header('cache-control', 'no-store')
      return c.json(await runAdmin(c, (ctx) => listCspGroupReports(ctx.tx, group, { page, limit })))
    },
  )
