import { Hono } from 'hono'
import { z } from 'zod'
import type { BackendEnv } from '#server/http/env'
import { asMember } from '#server/domain/tenancy/context'
import { cursorParam, decodeCursor, limitParam } from '#server/domain/tenancy/paging'
import { isUuid } from '~/lib/schemas/uuid'
import { createReport, getReport, listReports, setReportArchived, updateReport } from '#server/domain/reporting/reports'
import { operation } from '#server/http/contract'
import { idempotent } from '#server/http/idempotency'
import { requireSession } from '#server/http/session'
import { listStatusParam, titleField } from './projects'
import { ReportPageSchema, ReportSchema } from '~/lib/schemas/reporting-responses'
import { expectedRevision, STALE_WRITE } from '~/lib/schemas/edit-conflict'

const projectIdField = z.string({ error: 'Choose a project.' }).refine(isUuid, 'Choose a project of this organisation.')

const ReportListQuery = z.object({ projectId: projectIdField.optional(), limit: limitParam, after: cursorParam, status: listStatusParam })

const CreateReportBody = z.object({ projectId: projectIdField, title: titleField })

const UpdateReportBody = z.object({ title: titleField, expectedRevision })

/** docs/site-reporting.md: reports. */
export const reportsRoutes = new Hono<BackendEnv>()
  .get(
    '/api/reports',
    operation({ summary: 'List reports, optionally of one project (keyset paging)', tag: 'Reports', access: 'session', query: ReportListQuery, responses: { 200: { description: 'A page of reports and the cursor of the next.', schema: ReportPageSchema } } }),
    async (c) => {
      const session = requireSession(c)
      const query = c.req.valid('query')
      const after = decodeCursor(query.after)
      const { db, now } = c.get('deps')
      return c.json(
        await asMember(db, session, now(), (ctx) => listReports(ctx, { projectId: query.projectId, limit: query.limit, after, status: query.status })),
      )
    },
  )

  .post(
    '/api/reports',
    operation({ summary: 'Create a report in a project', tag: 'Reports', access: 'session', body: CreateReportBody, idempotent: true, responses: { 201: { description: 'The report.', schema: ReportSchema }, 403: 'A read-only member.' } }),
    idempotent,
    async (c) => {
      const session = requireSession(c)
      const input = c.req.valid('json')
      const { db, now } = c.get('deps')
      return c.json(await asMember(db, session, now(), (ctx) => createReport(ctx, input)), 201)
    },
  )

  .get('/api/reports/:id', operation({ summary: 'One report', tag: 'Reports', access: 'session', responses: { 200: { description: 'The report.', schema: ReportSchema }, 404: 'No such report in this organisation.' } }), async (c) => {
    const session = requireSession(c)
    const { db, now } = c.get('deps')
    return c.json(await asMember(db, session, now(), (ctx) => getReport(ctx, c.req.param('id'))))
  })

  .patch(
    '/api/reports/:id',
    operation({ summary: 'Rename a report', tag: 'Reports', access: 'session', body: UpdateReportBody, responses: { 200: { description: 'The report.', schema: ReportSchema }, 403: 'A read-only member.', 404: 'No such report.', 409: STALE_WRITE } }),
    async (c) => {
      const session = requireSession(c)
      const input = c.req.valid('json')
      const { db, now } = c.get('deps')
      return c.json(await asMember(db, session, now(), (ctx) => updateReport(ctx, c.req.param('id'), input)))
    },
  )

  .post('/api/reports/:id/archive', operation({ summary: 'Archive a report', tag: 'Reports', access: 'session', responses: { 200: { description: 'The report.', schema: ReportSchema }, 403: 'Not allowed.', 404: 'No such report.' } }), async (c) => {
    const session = requireSession(c)
    const { db, now } = c.get('deps')
    return c.json(await asMember(db, session, now(), (ctx) => setReportArchived(ctx, c.req.param('id'), true)))
  })

  .post('/api/reports/:id/unarchive', operation({ summary: 'Bring an archived report back', tag: 'Reports', access: 'session', responses: { 200: { description: 'The report.', schema: ReportSchema }, 403: 'Not allowed.', 404: 'No such report.' } }), async (c) => {
    const session = requireSession(c)
    const { db, now } = c.get('deps')
    return c.json(await asMember(db, session, now(), (ctx) => setReportArchived(ctx, c.req.param('id'), false)))
  })
