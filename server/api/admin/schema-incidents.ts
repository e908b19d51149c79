import { Hono } from 'hono'
import { z } from 'zod'
import { runAdmin } from '#server/api/admin/run'
import { inScope } from '#server/domain/observability/ingest'
import { listSchemaIncidentGroups, listSchemaIncidentOccurrences } from '#server/domain/observability/schema-incidents-list'
import { operation, pathPattern } from '#server/http/contract'
import type { BackendEnv } from '#server/http/env'
import { SCHEMA_INCIDENT_PAGE_SIZE, SCHEMA_INCIDENT_PAGE_SIZE_MAX } from '~/lib/admin/schema-incidents'
import {
  pagingParams,
  SchemaIncidentGroupPageSchema,
  SchemaIncidentListQuerySchema,
  SchemaIncidentOccurrencePageSchema,
  SCHEMA_INCIDENT_PATH_MAX,
} from '~/lib/schemas/admin-schema-incidents'

/**
 * Administration › Schema incidents (issue 15; docs/observability.md): responses that did not
 * match the schema their call declares (server/http/contract.ts checks a sample), grouped by call
 * and field, and each group's occurrences; administrators only. `scope=instance` shows the calls
 * made without an organisation (signed out), read after the admin check outside its transaction —
 * the only place those rows are visible; they never carry values, only types.
 */

const TAG = 'Schema incidents'

const ScopeQuery = z.object({
  scope: SchemaIncidentListQuerySchema.shape.scope,
  ...pagingParams(SCHEMA_INCIDENT_PAGE_SIZE, SCHEMA_INCIDENT_PAGE_SIZE_MAX),
})
const GroupParam = z.object({ group: pathPattern(/^[A-Za-z0-9_-]+$/, 'The group’s key as the list gives it (base64url, server/http/opaque.ts); one that names no group is 404.', z.string().min(1).max(SCHEMA_INCIDENT_PATH_MAX * 4)) })

export const adminSchemaIncidentRoutes = new Hono<BackendEnv>()
  .get(
    '/api/admin/schema-incidents',
    operation({
      summary: 'Schema incidents grouped by call and field, last seen first',
      description:
        'Each group: source, method, path template, field, count, first and last seen, and the last status, expected, got and correlation id. Filters: path (part of the template), since (a date or an ISO time), source (server, web); scope organisation (default) or instance (calls without an organisation); page and limit (50 by default).',
      tag: TAG,
      access: 'admin',
      query: SchemaIncidentListQuerySchema,
      responses: {
        200: { description: 'A page of groups.', schema: SchemaIncidentGroupPageSchema },
        400: 'A filter or the page is not valid: see errors.',
        403: 'Not an administrator of the organisation.',
      },
    }),
    async (c) => {
      const { scope, page, limit, ...filters } = c.req.valid('query')
      const paging = { page, limit }
      const organisation = await runAdmin(c, async (ctx) => (scope === 'organisation' ? listSchemaIncidentGroups(ctx.tx, filters, paging) : null))
      const result = organisation ?? (await inScope(c.get('deps').db, null, (tx) => listSchemaIncidentGroups(tx, filters, paging)))
      c.header('cache-control', 'no-store')
      return c.json({ scope, ...result })
    },
  )
  .get(
    '/api/admin/schema-incidents/groups/:group',
    operation({
      summary: 'The occurrences of one group of schema incidents, newest first',
      description: 'Each: status, expected, got, correlation id, release and time. `scope` as for the list; page and limit (50 by default).',
      tag: TAG,
      access: 'admin',
      params: GroupParam,
      query: ScopeQuery,
      responses: {
        200: { description: 'The group and a page of its occurrences.', schema: SchemaIncidentOccurrencePageSchema },
        400: 'The page or scope is not valid: see errors.',
        403: 'Not an administrator of the organisation.',
        404: 'No such group in this organisation (or scope).',
      },
    }),
    async (c) => {
      const { group } = c.req.valid('param')
      const { scope, page, limit } = c.req.valid('query')
      const paging = { page, limit }
      const organisation = await runAdmin(c, async (ctx) => (scope === 'organisation' ? listSchemaIncidentOccurrences(ctx.tx, group, paging) : null))
      const result = organisation ?? (await inScope(c.get('deps').db, null, (tx) => listSchemaIncidentOccurrences(tx, group, paging)))
      c.header('cache-control', 'no-store')
      return c.json({ scope, ...result })
    },
  )
