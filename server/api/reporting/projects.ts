import { Hono } from 'hono'
import { z } from 'zod'
import type { BackendEnv } from '#server/http/env'
import { asMember } from '#server/domain/tenancy/context'
import { listMembers } from '#server/domain/reporting/members'
import { organisationPackages } from '#server/domain/reporting/packages'
import { cursorParam, decodeCursor, limitParam } from '#server/domain/tenancy/paging'
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
import { operation } from '#server/http/contract'
import { idempotent } from '#server/http/idempotency'
import { requireSession } from '#server/http/session'
import { MemberListSchema, PackageListSchema, ProjectPageSchema, ProjectSchema } from '~/lib/schemas/reporting-responses'
import { expectedRevision, STALE_WRITE } from '~/lib/schemas/edit-conflict'

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
const ProjectPatchBody = ProjectBody.extend({ expectedRevision })

/** The list's status filter, shared with the reports list. */
export const listStatusParam = z.enum(LIST_STATUSES, { error: 'status must be active, archived or all.' }).default('active')

const ProjectListQuery = z.object({ limit: limitParam, after: cursorParam, status: listStatusParam })

/** docs/site-reporting.md: projects, and the packages and members items refer to. */
export const projectsRoutes = new Hono<BackendEnv>()
  .get(
    '/api/projects',
    operation({ summary: 'List projects (keyset paging)', tag: 'Projects', access: 'session', query: ProjectListQuery, responses: { 200: { description: 'A page of projects and the cursor of the next.', schema: ProjectPageSchema } } }),
    async (c) => {
      const session = requireSession(c)
      const query = c.req.valid('query')
      const after = decodeCursor(query.after)
      const { db, now } = c.get('deps')
      return c.json(await asMember(db, session, now(), (ctx) => listProjects(ctx, { limit: query.limit, after, status: query.status })))
    },
  )

  .post(
    '/api/projects',
    operation({ summary: 'Create a project', tag: 'Projects', access: 'session', body: ProjectBody, idempotent: true, responses: { 201: { description: 'The project.', schema: ProjectSchema }, 403: 'A read-only member.' } }),
    idempotent,
    async (c) => {
      const session = requireSession(c)
      const input = c.req.valid('json')
      const { db, now } = c.get('deps')
      return c.json(await asMember(db, session, now(), (ctx) => createProject(ctx, input)), 201)
    },
  )

  .get('/api/projects/:id', operation({ summary: 'One project', tag: 'Projects', access: 'session', responses: { 200: { description: 'The project.', schema: ProjectSchema }, 404: 'No such project in this organisation.' } }), async (c) => {
    const session = requireSession(c)
    const { db, now } = c.get('deps')
    return c.json(await asMember(db, session, now(), (ctx) => getProject(ctx, c.req.param('id'))))
  })

  .patch(
    '/api/projects/:id',
    operation({ summary: 'Rename a project or change its code', tag: 'Projects', access: 'session', body: ProjectPatchBody, responses: { 200: { description: 'The project.', schema: ProjectSchema }, 403: 'A read-only member.', 404: 'No such project.', 409: STALE_WRITE } }),
    async (c) => {
      const session = requireSession(c)
      const input = c.req.valid('json')
      const { db, now } = c.get('deps')
      return c.json(await asMember(db, session, now(), (ctx) => updateProject(ctx, c.req.param('id'), input)))
    },
  )

  .post('/api/projects/:id/archive', operation({ summary: 'Archive a project', tag: 'Projects', access: 'session', responses: { 200: { description: 'The project.', schema: ProjectSchema }, 403: 'Not an administrator.', 404: 'No such project.' } }), async (c) => {
    const session = requireSession(c)
    const { db, now } = c.get('deps')
    return c.json(await asMember(db, session, now(), (ctx) => setProjectArchived(ctx, c.req.param('id'), true)))
  })

  .post('/api/projects/:id/unarchive', operation({ summary: 'Bring an archived project back', tag: 'Projects', access: 'session', responses: { 200: { description: 'The project.', schema: ProjectSchema }, 403: 'Not an administrator.', 404: 'No such project.' } }), async (c) => {
    const session = requireSession(c)
    const { db, now } = c.get('deps')
    return c.json(await asMember(db, session, now(), (ctx) => setProjectArchived(ctx, c.req.param('id'), false)))
  })

  .get('/api/projects/:id/packages', operation({ summary: 'Packages usable on a project', tag: 'Packages', access: 'session', responses: { 200: { description: 'The packages.', schema: PackageListSchema }, 404: 'No such project.' } }), async (c) => {
    const session = requireSession(c)
    const { db, now } = c.get('deps')
    return c.json({ items: await asMember(db, session, now(), (ctx) => packagesOfProject(ctx, c.req.param('id'))) })
  })

  .get('/api/packages', operation({ summary: 'The organisation’s packages', tag: 'Packages', access: 'session', responses: { 200: { description: 'The packages.', schema: PackageListSchema } } }), async (c) => {
    const session = requireSession(c)
    const { db, now } = c.get('deps')
    return c.json({ items: await asMember(db, session, now(), (ctx) => organisationPackages(ctx)) })
  })

  .get('/api/members', operation({ summary: 'Active members of the organisation (for assignees)', tag: 'Projects', access: 'session', responses: { 200: { description: 'The members.', schema: MemberListSchema } } }), async (c) => {
    const session = requireSession(c)
    const { db, now } = c.get('deps')
    return c.json({ items: await asMember(db, session, now(), (ctx) => listMembers(ctx)) })
  })
