import { Hono, type Context } from 'hono'
import { z } from 'zod'
import type { Database } from '#server/db/client'
import {
  getEmailTemplate,
  listEmailTemplates,
  previewEmailTemplate,
  resetEmailTemplate,
  saveEmailTemplate,
  sendTestEmailTemplate,
  type TemplateMeta,
} from '#server/domain/admin/email-templates'
import { limitKey } from '#server/domain/auth/limits'
import { ClockedRateLimiter, type LimitRule } from '#server/domain/auth/rate-limiter'
import { operation, pathEnum } from '#server/http/contract'
import { EmailTemplateListSchema, EmailTemplateRenderedSchema, EmailTemplateSchema, EmailTemplateTestResultSchema } from '~/lib/schemas/admin-responses'
import type { BackendEnv } from '#server/http/env'
import { Problem } from '#server/http/problem'
import { requireSession } from '#server/http/session'
import { templateDefinitions } from '#server/mail/templates/registry'
import { EmailTemplatePreviewSchema, EmailTemplateSaveSchema, EmailTemplateTestSchema } from '~/lib/schemas/admin-email-templates'
import { runAdmin } from './run'

/** A template of the fixed registry (server/mail/templates/registry.ts); any other key is 404 (There is no such e-mail template). */
const EmailTemplateKeyParams = z.object({
  key: pathEnum(
    templateDefinitions().map((definition) => definition.key),
    'A mail the product sends (server/mail/templates/registry.ts); any other key is 404.',
    z.string().max(100),
  ),
})

/**
 * Spec §7 "Observability and admin data", email templates (docs/admin/email-templates.md): list,
 * get, PUT, reset, preview and test, per organisation, for its administrators.
 */

const TAG = 'Administration'

/** Test mails go to any address, so a few only: 10 per administrator in 10 minutes. */
export const TEST_MAIL_LIMIT = { prefix: 'email-template-test', points: 10, windowSeconds: 10 * 60 } as const satisfies LimitRule

const limiters = new WeakMap<Database, ClockedRateLimiter>()

async function limitTestMail(c: Context<BackendEnv>): Promise<void> {
  const session = requireSession(c)
  const { db, now } = c.get('deps')
  let limiter = limiters.get(db)
  if (!limiter) {
    limiter = new ClockedRateLimiter(db, TEST_MAIL_LIMIT)
    limiters.set(db, limiter)
  }
  const { wait } = await limiter.hit(limitKey(session.tenantId, session.userId), { now: now() })
  if (wait > 0) {
    const minutes = Math.max(1, Math.ceil(wait / 60))
    throw new Problem({
      status: 429,
      title: 'Too many test mails',
      detail: `You sent ${TEST_MAIL_LIMIT.points} test mails in the last few minutes. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
      code: 'KR_THROTTLED',
      remediation: 'Use Preview to check a template without sending it.',
      retryAfterSeconds: wait,
    })
  }
}

function meta(c: Context<BackendEnv>): TemplateMeta {
  return { ip: c.get('ip'), correlationId: c.get('correlationId') }
}

const notAdmin = 'Not an administrator of this organisation.'
const noSuchTemplate = 'The product sends no mail with this key.'

export const emailTemplateRoutes = new Hono<BackendEnv>()
  .get(
    '/api/admin/email-templates',
    operation({
      summary: 'Every mail the product sends, with whether this organisation customised its template',
      tag: TAG,
      access: 'admin',
      responses: { 200: { description: 'The templates.', schema: EmailTemplateListSchema }, 403: notAdmin },
    }),
    async (c) => c.json(await runAdmin(c, (ctx) => listEmailTemplates(ctx))),
  )
  .get(
    '/api/admin/email-templates/:key',
    operation({
      summary: 'One template: the texts that apply (the organisation’s or the default), the defaults, the variables and the version',
      tag: TAG,
      access: 'admin',
      params: EmailTemplateKeyParams,
      responses: { 200: { description: 'The template (version 0 while the default applies).', schema: EmailTemplateSchema }, 403: notAdmin, 404: noSuchTemplate },
    }),
    async (c) => c.json(await runAdmin(c, (ctx) => getEmailTemplate(ctx, c.req.valid('param').key))),
  )
  .put(
    '/api/admin/email-templates/:key',
    operation({
      summary: 'Save the organisation’s version of a template (subject, HTML and text bodies); `version` is the one edited',
      tag: TAG,
      access: 'admin',
      params: EmailTemplateKeyParams,
      body: EmailTemplateSaveSchema,
      responses: {
        200: { description: 'The saved template, version raised.', schema: EmailTemplateSchema },
        400: 'A field has problems (an unknown variable, an unclosed section, …): see errors, keyed subject, html and text.',
        403: notAdmin,
        404: noSuchTemplate,
        409: 'Saved by someone else meanwhile (KR_VERSION_CONFLICT): `currentVersion`, `yourVersion` and `current`; nothing was saved.',
      },
    }),
    async (c) => c.json(await runAdmin(c, (ctx) => saveEmailTemplate(ctx, c.req.valid('param').key, c.req.valid('json'), meta(c)))),
  )
  .delete(
    '/api/admin/email-templates/:key',
    operation({
      summary: 'Go back to the default template',
      tag: TAG,
      access: 'admin',
      params: EmailTemplateKeyParams,
      responses: { 200: { description: 'The template, now the default (version 0).', schema: EmailTemplateSchema }, 403: notAdmin, 404: noSuchTemplate },
    }),
    async (c) => c.json(await runAdmin(c, (ctx) => resetEmailTemplate(ctx, c.req.valid('param').key, meta(c)))),
  )
  .post(
    '/api/admin/email-templates/:key/preview',
    operation({
      summary: 'Render a template with sample data: the saved one, or the unsaved texts sent',
      tag: TAG,
      access: 'admin',
      params: EmailTemplateKeyParams,
      body: EmailTemplatePreviewSchema,
      responses: { 200: { description: 'The subject, HTML and text: html is the whole document, layout included.', schema: EmailTemplateRenderedSchema }, 400: 'A field has problems: see errors.', 403: notAdmin, 404: noSuchTemplate },
    }),
    async (c) => c.json(await runAdmin(c, (ctx) => previewEmailTemplate(ctx, c.req.valid('param').key, c.req.valid('json')))),
  )
  .post(
    '/api/admin/email-templates/:key/test',
    operation({
      summary: 'Send a test of a template with sample data to an address, through the outbox (subject starts with "[Test] ")',
      tag: TAG,
      access: 'admin',
      params: EmailTemplateKeyParams,
      body: EmailTemplateTestSchema,
      responses: {
        202: { description: 'The mail is in the outbox.', schema: EmailTemplateTestResultSchema },
        400: 'A field has problems: see errors.',
        403: notAdmin,
        404: noSuchTemplate,
        429: 'Too many test mails (10 in 10 minutes): retryAfterSeconds.',
      },
    }),
    async (c) => {
      await limitTestMail(c)
      return c.json(await runAdmin(c, (ctx) => sendTestEmailTemplate(ctx, c.req.valid('param').key, c.req.valid('json'), meta(c))), 202)
    },
  )
