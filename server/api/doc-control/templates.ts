import { Hono, type Context } from 'hono'
import { z } from 'zod'
import { archiveTemplate, createTemplate, getTemplate, listTemplates, updateTemplate } from '#server/domain/doc-control/templates'
import { asMember, type DomainContext } from '#server/domain/tenancy/context'
import type { BackendEnv } from '#server/http/env'
import { operation } from '#server/http/contract'
import { WorkflowTemplateListSchema, WorkflowTemplateSchema } from '~/lib/schemas/doc-control-responses'
import { idempotent } from '#server/http/idempotency'
import { requireSession } from '#server/http/session'
import { TemplateSchema } from '~/lib/schemas/workflows'
import { expectedRevision, STALE_WRITE } from '~/lib/schemas/edit-conflict'

/** docs/doc-control.md "API": workflow templates, versioned; admins write, members read. */

function run<T>(c: Context<BackendEnv>, work: (ctx: DomainContext) => Promise<T>): Promise<T> {
  const session = requireSession(c)
  const { db, now } = c.get('deps')
  return asMember(db, session, now(), work)
}

const ListQuery = z.object({
  includeArchived: z.enum(['true', 'false'], { error: 'includeArchived is true or false.' }).optional(),
})

const VersionQuery = z.object({
  version: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.coerce
      .number({ error: 'version is a whole number from 1.' })
      .int('version is a whole number from 1.')
      .min(1, 'version is a whole number from 1.')
      .max(1_000_000, 'version is a whole number from 1.')
      .optional(),
  ),
})

export const workflowTemplateRoutes = new Hono<BackendEnv>()
  .get(
    '/api/workflow-templates',
    operation({
      summary: 'Workflow templates of the organisation (archived ones when asked)',
      tag: 'Document control',
      access: 'session',
      query: ListQuery,
      responses: { 200: { description: 'The templates by name, each at its current version.', schema: WorkflowTemplateListSchema } },
    }),
    async (c) => c.json({ items: await run(c, (ctx) => listTemplates(ctx, { includeArchived: c.req.valid('query').includeArchived === 'true' })) }),
  )
  .post(
    '/api/workflow-templates',
    operation({
      summary: 'Create a workflow template (version 1)',
      tag: 'Document control',
      access: 'session',
      body: TemplateSchema,
      idempotent: true,
      responses: {
        201: { description: 'The template.', schema: WorkflowTemplateSchema },
        400: 'The steps have problems: see errors.',
        403: 'Not an organisation admin.',
        409: 'The name is taken.',
        422: 'A named person or party does not exist or cannot review.',
      },
    }),
    idempotent,
    async (c) => c.json(await run(c, (ctx) => createTemplate(ctx, c.req.valid('json'))), 201),
  )
  .get(
    '/api/workflow-templates/:templateId',
    operation({
      summary: 'One workflow template: its current version, or `?version=n`',
      tag: 'Document control',
      access: 'session',
      query: VersionQuery,
      responses: { 200: { description: 'The template at that version.', schema: WorkflowTemplateSchema }, 404: 'No such template or version.' },
    }),
    async (c) => c.json(await run(c, (ctx) => getTemplate(ctx, c.req.param('templateId'), c.req.valid('query').version))),
  )
  .put(
    '/api/workflow-templates/:templateId',
    operation({
      summary: 'Change a workflow template: writes version n + 1 (running workflows keep theirs)',
      tag: 'Document control',
      access: 'session',
      body: TemplateSchema.extend({ expectedRevision }),
      idempotent: true,
      responses: {
        200: { description: 'The template at its new version.', schema: WorkflowTemplateSchema },
        400: 'The steps have problems: see errors.',
        403: 'Not an organisation admin.',
        404: 'No such template.',
        409: `The name is taken, or the template is archived. ${STALE_WRITE}`,
        422: 'A named person or party does not exist or cannot review.',
      },
    }),
    idempotent,
    async (c) => c.json(await run(c, (ctx) => updateTemplate(ctx, c.req.param('templateId'), c.req.valid('json')))),
  )
  .post(
    '/api/workflow-templates/:templateId/archive',
    operation({
      summary: 'Archive a workflow template (it starts no new review)',
      tag: 'Document control',
      access: 'session',
      idempotent: true,
      responses: { 200: { description: 'The template.', schema: WorkflowTemplateSchema }, 403: 'Not an organisation admin.', 404: 'No such template.' },
    }),
    idempotent,
    async (c) => c.json(await run(c, (ctx) => archiveTemplate(ctx, c.req.param('templateId')))),
  )
