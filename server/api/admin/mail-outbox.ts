import { Hono, type Context } from 'hono'
import { z } from 'zod'
import { runAdmin } from '#server/api/admin/run'
import { effectiveMailConfig } from '#server/domain/config/effective'
import { cancelMailMessage, getMailMessage, listMailOutbox, mailTransportsOf, type OutboxScope, readTransportHealth, retryMailMessage } from '#server/domain/admin/mail-outbox'
import { isPlatformOperator } from '#server/domain/licensing/operator'
import type { AuditMeta } from '#server/domain/admin/packages'
import { cursorParam, decodeCursor } from '#server/domain/tenancy/paging'
import type { BackendEnv } from '#server/http/env'
import { operation } from '#server/http/contract'
import { idempotent } from '#server/http/idempotency'
import { Problem, problems } from '#server/http/problem'
import { optional, wholeNumber } from '#server/http/query'
import { requireSession } from '#server/http/session'
import { instanceMailRoute } from '#server/mail/routing'
import { describeSmtp, smtpSettingsFromConfig } from '#server/mail/transports'
import { MAIL_PAGE_SIZE, MAIL_PAGE_SIZE_MAX } from '~/lib/admin/mail-outbox'
import { MailOutboxFilterSchema } from '~/lib/schemas/admin-mail-outbox'
import { MailMessageDetailSchema, MailOutboxPageSchema, MailTransportsSchema } from '~/lib/schemas/admin-mail-outbox-responses'

/** docs/admin/mail.md "The outbox page": the organisation's outgoing mail, retry and cancel, and its transports' health; administrators only. */

const TAG = 'Mail outbox'

const ListQuery = MailOutboxFilterSchema.extend({
  after: cursorParam,
  limit: optional(wholeNumber('limit', MAIL_PAGE_SIZE_MAX)).transform((v) => v ?? MAIL_PAGE_SIZE),
})
const IdParam = z.object({ id: z.string().max(100) })

/**
 * The HTML part, served on its own so the message page can frame it: no script, no plugins, no
 * forms, nothing fetched from elsewhere; inline styles only (mail clients render them too), and
 * images only when they are embedded (data:). `sandbox` gives the document an opaque origin.
 */
const MAIL_HTML_CSP = "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'self'"

function meta(c: Context<BackendEnv>): AuditMeta {
  return { ip: c.get('ip'), correlationId: c.get('correlationId') }
}

/** A platform operator also sees the mail of no organisation (a reset asked from the sign-in page). */
async function scopeOf(c: Context<BackendEnv>): Promise<OutboxScope> {
  const { db, config } = c.get('deps')
  return { platform: await isPlatformOperator(db, config.platformOperatorEmails, requireSession(c).userId) }
}

const changeResponses = (what: string) => ({
  200: { description: `The message, ${what}.`, schema: MailMessageDetailSchema },
  403: 'Not an administrator of the organisation.',
  404: 'No such message in this organisation.',
  409: 'The message is not queued or dead (sending, sent or cancelled): KR_MAIL_STATE.',
})

export const mailOutboxRoutes = new Hono<BackendEnv>()
  .get(
    '/api/admin/mail-outbox',
    operation({
      summary: 'The organisation’s outgoing mail, newest first (for a platform operator also the mail of no organisation)',
      description: 'Filters: status (queued, sending, sent, dead, cancelled), template, to (part of the address); keyset paging with `after`, 50 a page by default.',
      tag: TAG,
      access: 'admin',
      query: ListQuery,
      responses: {
        200: { description: 'A page of messages, and the templates the organisation’s mail used (for the filter).', schema: MailOutboxPageSchema },
        400: 'A filter or the cursor is not valid: see errors.',
        403: 'Not an administrator of the organisation.',
      },
    }),
    async (c) => {
      const query = c.req.valid('query')
      const after = decodeCursor(query.after)
      c.header('cache-control', 'no-store')
      const scope = await scopeOf(c)
      return c.json(await runAdmin(c, (ctx) => listMailOutbox(ctx, { status: query.status, template: query.template, to: query.to, after, limit: query.limit }, scope)))
    },
  )
  .get(
    '/api/admin/mail-outbox/transports',
    operation({
      summary: 'Failure tracking of the transports the organisation’s mail goes through',
      description:
        'Its own SMTP server (when saved in Configuration › Mail, or used before), and this server’s transport (SMTP_URL, or MAIL_FILE_DIR in development) when its mail goes there. Each with failureCount, consecutiveFailures, lastFailureUtc, lastSuccessUtc, lastError (spec §3).',
      tag: TAG,
      access: 'admin',
      responses: {
        200: { description: 'Each transport’s failure tracking; `noTransport`: mail stays queued.', schema: MailTransportsSchema },
        403: 'Not an administrator of the organisation.',
      },
    }),
    async (c) => {
      const { db, config } = c.get('deps')
      const rows = await runAdmin(c, (ctx) => readTransportHealth(ctx))
      const tenantId = requireSession(c).tenantId
      // Read after the admin check, outside its transaction (the saved settings are read as the owner).
      const own = await effectiveMailConfig(db, config.sessionSecret, tenantId)
      const instance = instanceMailRoute({ smtpUrl: config.smtpUrl, mailFrom: config.mailFrom, mailFileDir: config.mailFileDir })
      c.header('cache-control', 'no-store')
      return c.json(
        mailTransportsOf(
          tenantId,
          rows,
          { configured: own?.configured === true, description: own?.configured ? describeSmtp(smtpSettingsFromConfig(own.values)) : null },
          instance,
        ),
      )
    },
  )
  .get(
    '/api/admin/mail-outbox/:id',
    operation({
      summary: 'One message: recipient, subject, template, status, attempts, last error, times, transport, and its text and HTML bodies',
      tag: TAG,
      access: 'admin',
      params: IdParam,
      responses: {
        200: { description: 'The message, with its text and HTML bodies (htmlBody null when it has none).', schema: MailMessageDetailSchema },
        403: 'Not an administrator of the organisation.',
        404: 'No such message in this organisation.',
      },
    }),
    async (c) => {
      c.header('cache-control', 'no-store')
      const scope = await scopeOf(c)
      return c.json(await runAdmin(c, (ctx) => getMailMessage(ctx, c.req.valid('param').id, scope)))
    },
  )
  .get(
    '/api/admin/mail-outbox/:id/html',
    operation({
      summary: 'The HTML part of a message, for the message page’s frame',
      description: `text/html under \`Content-Security-Policy: ${MAIL_HTML_CSP}\`: no script runs, nothing is fetched.`,
      tag: TAG,
      access: 'admin',
      params: IdParam,
      responses: {
        200: { description: 'The HTML part, as sent.', contentType: 'text/html' },
        403: 'Not an administrator of the organisation.',
        404: 'No such message in this organisation, or it has no HTML part.',
      },
    }),
    async (c) => {
      const scope = await scopeOf(c)
      const message = await runAdmin(c, (ctx) => getMailMessage(ctx, c.req.valid('param').id, scope))
      if (message.htmlBody === null) throw new Problem(problems.notFound('This message has no HTML part.'))
      return c.body(message.htmlBody, 200, {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': MAIL_HTML_CSP,
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        'cache-control': 'no-store',
      })
    },
  )
  .post(
    '/api/admin/mail-outbox/:id/retry',
    operation({
      summary: 'Send a queued or dead message again now',
      description: 'Queued: tried at the next pass instead of after its back-off. Dead: queued again with a fresh count of attempts. Audited (`admin.mail.retried`).',
      tag: TAG,
      access: 'admin',
      params: IdParam,
      idempotent: true,
      responses: changeResponses('queued, due now'),
    }),
    idempotent,
    async (c) => {
      const scope = await scopeOf(c)
      return c.json(await runAdmin(c, (ctx) => retryMailMessage(ctx, c.req.valid('param').id, meta(c), scope)))
    },
  )
  .post(
    '/api/admin/mail-outbox/:id/cancel',
    operation({
      summary: 'Cancel a queued or dead message: it is never sent',
      description: 'Audited (`admin.mail.cancelled`).',
      tag: TAG,
      access: 'admin',
      params: IdParam,
      idempotent: true,
      responses: changeResponses('cancelled'),
    }),
    idempotent,
    async (c) => {
      const scope = await scopeOf(c)
      return c.json(await runAdmin(c, (ctx) => cancelMailMessage(ctx, c.req.valid('param').id, meta(c), scope)))
    },
  )
