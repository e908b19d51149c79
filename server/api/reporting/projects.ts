import { Hono } from 'hono'
import { z } from 'zod'
import type { BackendEnv } from '#server/http/env'
import { asMember } from '#server/domain/reporting/context'
import { listMembers } from '#server/domain/reporting/members'
import { organisationPackages } from '#server/domain/reporting/packages'
import { decodeCursor, limitParam } from '#server/domain/reporting/paging'
import {
  createProject,
  getProject,
  LIST_STATUSES,
  listProjects,
  packagesOfProject,
  PROJECT_CODE_MAX,
  setProjectArchived,
  TITLE_MAX,
  updateProject,
} from '#server/domain/reporting/projects'
import { parseJson } from '#server/http/body'
import { idempotent } from '#server/http/idempotency'
import { requireSession } from '#server/http/session'

/**
 * A project or report title: trimmed, at most 200 characters; empty (or only spaces) is stored as
 * null and shows as "Untitled …". Absent leaves a PATCH's title as it is; null clears it.
 */
export const titleField = z
  .string({ error: 'The title must be text.' })
  .trim()
  .max(TITLE_MAX, `Use at most ${TITLE_MAX} characters.`)
  .nullable()
  .optional()
  .transform((value) => (value === '' ? null : value))

const codeField = z
  .string({ error: 'The code must be text.' })
  .trim()
  .max(PROJECT_CODE_MAX, `Use at most ${PROJECT_CODE_MAX} characters.`)
  .nullable()
  .optional()
  .transform((value) => (value === '' ? null : value))

const ProjectBody = z.object({ title: titleField, code: codeField })

/** The list's status filter, shared with the reports list. */
export const listStatusParam = z.enum(LIST_STATUSES, { error: 'status must be active, archived or all.' }).default('active')

const ProjectListQuery = z.object({ limit: limitParam, after: z.string().optional(), status: listStatusParam })

/** docs/site-reporting.md: projects, and the packages and members items refer to. */
export const projectsRoutes = new Hono<BackendEnv>()
  .get('/api/projects', async (c) => {
    const session = requireSession(c)
    const query = ProjectListQuery.parse(c.req.query())
    const after = decodeCursor(query.after)
    const { db, now } = c.get('deps')
    return c.json(await asMember(db, session, now(), (ctx) => listProjects(ctx, { limit: query.limit, after, status: query.status })))
  })

  .post('/api/projects', idempotent, async (c) => {
    const session = requireSession(c)
    const input = await parseJson(c, ProjectBody)
    const { db, now } = c.get('deps')
    return c.json(await asMember(db, session, now(), (ctx) => createProject(ctx, input)), 201)
  })

  .get('/api/projects/:id', async (c) => {
    const session = requireSession(c)
    const { db, now } = c.get('deps')
    return c.json(await asMember(db, session, now(), (ctx) => getProject(ctx, c.req.param('id'))))
  })

  .patch('/api/projects/:id', async (c) => {
    const session = requireSession(c)
    const input = await parseJson(c, ProjectBody)
    const { db, now } = c.get('deps')
    return c.json(await asMember(db, session, now(), (ctx) => updateProject(ctx, c.req.param('id'), input)))
  })

  .post('/api/projects/:id/archive', async (c) => {
    const session = requireSession(c)
    const { db, now } = c.get('deps')
    return c.json(await asMember(db, session, now(), (ctx) => setProjectArchived(ctx, c.req.param('id'), true)))
  })

  .post('/api/projects/:id/unarchive', async (c) => {
    const session = requireSession(c)
    const { db, now } = c.get('deps')
    return c.json(await asMember(db, session, now(), (ctx) => setProjectArchived(ctx, c.req.param('id'), false)))
  })

  .get('/api/projects/:id/packages', async (c) => {
    const session = requireSession(c)
    const { db, now } = c.get('deps')
    return c.json({ items: await asMember(db, session, now(), (ctx) => packagesOfProject(ctx, c.req.param('id'))) })
  })

  .get('/api/packages', async (c) => {
    const session = requireSession(c)
    const { db, now } = c.get('deps')
    return c.json({ items: await asMember(db, session, now(), (ctx) => organisationPackages(ctx)) })
  })

  .get('/api/members', async (c) => {
    const session = requireSession(c)
    const { db, now } = c.get('deps')
    return c.json({ items: await asMember(db, session, now(), (ctx) => listMembers(ctx)) })
  })
