import { Hono } from 'hono'
import { z } from 'zod'
import type { BackendEnv } from '#server/http/env'
import { asMember } from '#server/domain/reporting/context'
import { decodeCursor, limitParam } from '#server/domain/reporting/paging'
import { isUuid } from '#server/domain/reporting/projects'
import { createReport, getReport, listReports, setReportArchived, updateReport } from '#server/domain/reporting/reports'
import { parseJson } from '#server/http/body'
import { idempotent } from '#server/http/idempotency'
import { requireSession } from '#server/http/session'
import { listStatusParam, titleField } from './projects'

const projectIdField = z.string({ error: 'Choose a project.' }).refine(isUuid, 'Choose a project of this organisation.')

const ReportListQuery = z.object({ projectId: projectIdField.optional(), limit: limitParam, after: z.string().optional(), status: listStatusParam })

const CreateReportBody = z.object({ projectId: projectIdField, title: titleField })

const UpdateReportBody = z.object({ title: titleField })

/** docs/site-reporting.md: reports. */
export const reportsRoutes = new Hono<BackendEnv>()
  .get('/api/reports', async (c) => {
    const session = requireSession(c)
    const query = ReportListQuery.parse(c.req.query())
    const after = decodeCursor(query.after)
    const { db, now } = c.get('deps')
    return c.json(
      await asMember(db, session, now(), (ctx) => listReports(ctx, { projectId: query.projectId, limit: query.limit, after, status: query.status })),
    )
  })

  .post('/api/reports', idempotent, async (c) => {
    const session = requireSession(c)
    const input = await parseJson(c, CreateReportBody)
    const { db, now } = c.get('deps')
    return c.json(await asMember(db, session, now(), (ctx) => createReport(ctx, input)), 201)
  })

  .get('/api/reports/:id', async (c) => {
    const session = requireSession(c)
    const { db, now } = c.get('deps')
    return c.json(await asMember(db, session, now(), (ctx) => getReport(ctx, c.req.param('id'))))
  })

  .patch('/api/reports/:id', async (c) => {
    const session = requireSession(c)
    const input = await parseJson(c, UpdateReportBody)
    const { db, now } = c.get('deps')
    return c.json(await asMember(db, session, now(), (ctx) => updateReport(ctx, c.req.param('id'), input)))
  })

  .post('/api/reports/:id/archive', async (c) => {
    const session = requireSession(c)
    const { db, now } = c.get('deps')
    return c.json(await asMember(db, session, now(), (ctx) => setReportArchived(ctx, c.req.param('id'), true)))
  })

  .post('/api/reports/:id/unarchive', async (c) => {
    const session = requireSession(c)
    const { db, now } = c.get('deps')
    return c.json(await asMember(db, session, now(), (ctx) => setReportArchived(ctx, c.req.param('id'), false)))
  })
