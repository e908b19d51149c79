import { Hono, type Context } from 'hono'
import { z } from 'zod'
import { STALE_WRITE } from '~/lib/schemas/edit-conflict'
import { changeTicket, getTicket, listAllTickets, listMyTickets, openTicket, replyToTicket, supportAssignees, type SupportMeta } from '#server/domain/admin/support'
import { attachmentBlob, createSupportUpload, MAX_ATTACHMENT_BYTES, MAX_ATTACHMENTS_AT_ONCE } from '#server/domain/admin/support-attachments'
import { storeDirectAttachments } from '#server/domain/admin/support-direct'
import { asMember } from '#server/domain/tenancy/context'
import { cursorParam } from '#server/domain/tenancy/paging'
import type { BackendEnv } from '#server/http/env'
import { operation } from '#server/http/contract'
import { SupportAssigneeListSchema, SupportAttachmentListSchema, SupportTicketDetailSchema, SupportTicketPageSchema, SupportUploadSessionSchema } from '~/lib/schemas/admin-responses'
import { idempotent } from '#server/http/idempotency'
import { fileParts, multipartForm, multipartLimit } from '#server/http/multipart'
import { optional } from '#server/http/query'
import { requireSession } from '#server/http/session'
import { SUPPORT_STATUSES } from '~/lib/admin/support'
import { NewTicketSchema, SupportReplySchema, TicketChangeSchema } from '~/lib/schemas/admin-support'
import { serveBlob } from '../photos/serve-blob'
import { JSON_BODY_LIMIT, NewUploadSchema, photoRuntime } from '../photos/uploads'
import { runAdmin } from './run'

/**
 * Support tickets (docs/admin/support.md). The user side (/api/support/...): any active member
 * opens tickets and follows their own; attachments go through the one resumable upload (a session
 * of purpose `support`, then the /api/uploads calls) or, without JavaScript, one multipart request.
 * The admin side (/api/admin/support/...): the organisation's administrators list, assign, change
 * the status of and answer every ticket.
 */

const DEFAULT_LIMIT = 50
const MAX_LIMIT = 200

const limit = z.preprocess(
  (v) => (v === '' ? undefined : v),
  z.coerce
    .number({ error: `limit must be a whole number from 1 to ${MAX_LIMIT}.` })
    .int(`limit must be a whole number from 1 to ${MAX_LIMIT}.`)
    .min(1, `limit must be a whole number from 1 to ${MAX_LIMIT}.`)
    .max(MAX_LIMIT, `limit must be a whole number from 1 to ${MAX_LIMIT}.`)
    .default(DEFAULT_LIMIT),
)

const status = optional(z.enum(SUPPORT_STATUSES, { error: 'status is open, pending, resolved or closed.' }))

const MyListQuery = z.object({ limit, after: cursorParam, status })

const AdminListQuery = z.object({
  limit,
  after: cursorParam,
  status,
  assigneeId: optional(z.union([z.literal('none'), z.uuid()], { error: 'assigneeId is an administrator’s id, or none.' })),
  q: optional(z.string().trim().max(200, 'The search must be at most 200 characters.')),
})

/** The form's body is read in memory, so the whole request is bounded by one file's limit (as photos' direct upload). */
const DIRECT_BODY_LIMIT = MAX_ATTACHMENT_BYTES + 64 * 1024

function meta(c: Context<BackendEnv>): SupportMeta {
  return { ip: c.get('ip'), correlationId: c.get('correlationId'), publicUrl: c.get('deps').config.publicUrl }
}

function runMember<T>(c: Context<BackendEnv>, work: Parameters<typeof asMember<T>>[3]): Promise<T> {
  const session = requireSession(c)
  const { db, now } = c.get('deps')
  return asMember(db, session, now(), work)
}

const TAG = 'Administration'

export const supportRoutes = new Hono<BackendEnv>()
  // The user side.
  .post(
    '/api/support/tickets',
    operation({
      summary: 'Open a support ticket',
      description: 'Any active member, read-only too. Numbered per organisation. Mails the organisation’s administrators.',
      tag: TAG,
      access: 'session',
      body: NewTicketSchema,
      idempotent: true,
      responses: { 201: { description: 'The ticket, with its thread (empty) and attachments (none yet).', schema: SupportTicketDetailSchema }, 400: 'The subject or body is missing or too long: see errors.' },
    }),
    idempotent,
    async (c) => {
      const ticket = await runMember(c, (ctx) => openTicket(ctx, meta(c), c.req.valid('json')))
      c.header('location', `/api/support/tickets/${ticket.id}`)
      return c.json(ticket, 201)
    },
  )
  .get(
    '/api/support/tickets',
    operation({
      summary: 'My support tickets, newest first',
      tag: TAG,
      access: 'session',
      query: MyListQuery,
      responses: { 200: { description: 'A page of your tickets, 50 by default.', schema: SupportTicketPageSchema } },
    }),
    async (c) => c.json(await runMember(c, (ctx) => listMyTickets(ctx, c.req.valid('query')))),
  )
  .get(
    '/api/support/tickets/:id',
    operation({
      summary: 'One of my support tickets, with its thread and attachments',
      tag: TAG,
      access: 'session',
      responses: { 200: { description: 'The ticket.', schema: SupportTicketDetailSchema }, 404: 'No such ticket of yours (administrators read every ticket through /api/admin/support).' },
    }),
    async (c) => c.json(await runMember(c, (ctx) => getTicket(ctx, c.req.param('id'), 'mine'))),
  )
  .post(
    '/api/support/tickets/:id/messages',
    operation({
      summary: 'Reply on my support ticket',
      description: 'A pending or resolved ticket opens again. Mails the assignee, or every administrator while nobody is assigned.',
      tag: TAG,
      access: 'session',
      body: SupportReplySchema,
      idempotent: true,
      responses: { 201: { description: 'The ticket with the reply.', schema: SupportTicketDetailSchema }, 400: 'No text, or too long.', 404: 'No such ticket of yours.', 409: 'The ticket is closed (KR_SUPPORT_CLOSED).' },
    }),
    idempotent,
    async (c) => c.json(await runMember(c, (ctx) => replyToTicket(ctx, meta(c), c.req.param('id'), 'user', c.req.valid('json').body)), 201),
  )
  .post(
    '/api/support/tickets/:id/uploads',
    operation({
      summary: 'Start a resumable upload of an attachment to a support ticket',
      description: `An upload session of purpose support: chunks, status, abort and complete are the /api/uploads calls; complete answers the attachment. Images, PDF, plain text or ZIP, read from the bytes; at most ${MAX_ATTACHMENT_BYTES / (1024 * 1024)} MB. The opener or an administrator.`,
      tag: TAG,
      access: 'session',
      body: NewUploadSchema,
      maxBodyBytes: JSON_BODY_LIMIT,
      responses: {
        201: { description: 'The upload session (purpose support), with its chunk size and expiry.', schema: SupportUploadSessionSchema },
        404: 'No such ticket of yours.',
        409: 'The ticket is closed.',
        413: 'Over the attachment size limit or the storage quota.',
      },
    }),
    async (c) => {
      const rt = photoRuntime(c)
      const session = await rt.run((ctx) => createSupportUpload(ctx, c.req.param('id'), c.req.valid('json')))
      c.header('location', `/api/uploads/${session.id}`)
      c.header('cache-control', 'no-store')
      return c.json({ ...session, maxFileBytes: MAX_ATTACHMENT_BYTES }, 201)
    },
  )
  .post(
    '/api/support/tickets/:id/attachments',
    operation({
      summary: 'Attach files to a support ticket in one request (the forms without JavaScript)',
      tag: TAG,
      access: 'session',
      rawBody: {
        contentType: 'multipart/form-data',
        maxBytes: DIRECT_BODY_LIMIT,
        description: `One to ${MAX_ATTACHMENTS_AT_ONCE} file (or files) parts, together at most the limit of one file`,
      },
      responses: {
        201: { description: 'The attachments; all or nothing.', schema: SupportAttachmentListSchema },
        400: 'No file, or too many.',
        404: 'No such ticket of yours.',
        409: 'The ticket is closed.',
        413: 'A file over the limit, or over the storage quota.',
        415: 'A file that is not an image, PDF, plain text or ZIP.',
      },
    }),
    multipartLimit(DIRECT_BODY_LIMIT),
    async (c) => {
      const rt = photoRuntime(c)
      const form = await multipartForm(c, 'the attachments, each as a file part,')
      const files = fileParts(form, ['file', 'files'], { max: MAX_ATTACHMENTS_AT_ONCE, noun: 'file' })
      const items = await storeDirectAttachments(rt, c.req.param('id'), files)
      return c.json({ items }, 201)
    },
  )
  .get(
    '/api/support/tickets/:id/attachments/:attachmentId',
    operation({
      summary: 'Download an attachment of a support ticket',
      description: 'Always as an attachment (Content-Disposition), under nosniff and a sandboxing CSP. The opener and administrators.',
      tag: TAG,
      access: 'session',
      responses: { 200: { description: 'The bytes, with ETag and Range support.', contentType: '*/*' }, 206: { description: 'A byte range.', contentType: '*/*' }, 302: 'Only with BLOB_STORE=s3 and S3_PRESIGN_MIN_BYTES: a whole download of at least that size, after the permission check, goes to a short-lived presigned URL of the bucket.', 304: 'Not modified.', 404: 'No such ticket or attachment.' },
    }),
    async (c) => {
      const rt = photoRuntime(c)
      const blob = await rt.run((ctx) => attachmentBlob(ctx, c.req.param('id'), c.req.param('attachmentId')))
      return serveBlob(c, blob, { cache: 'no-cache', csp: 'sandbox', disposition: 'attachment', missing: 'The attachment’s file was not found.' })
    },
  )

  // The admin side.
  .get(
    '/api/admin/support/tickets',
    operation({
      summary: 'Support tickets of the organisation, newest first',
      description: 'Filters: status, assigneeId (an administrator’s id, or none), q (subject, body, or #number). Paged with after.',
      tag: TAG,
      access: 'admin',
      query: AdminListQuery,
      responses: { 200: { description: 'A page of tickets, 50 by default (at most 200).', schema: SupportTicketPageSchema }, 403: 'Not an administrator.' },
    }),
    async (c) => c.json(await runAdmin(c, (ctx) => listAllTickets(ctx, c.req.valid('query')))),
  )
  .get(
    '/api/admin/support/assignees',
    operation({
      summary: 'Whom a support ticket may be assigned to: the organisation’s active administrators',
      tag: TAG,
      access: 'admin',
      responses: { 200: { description: 'The organisation’s administrators, by name.', schema: SupportAssigneeListSchema }, 403: 'Not an administrator.' },
    }),
    async (c) => c.json({ items: await runAdmin(c, (ctx) => supportAssignees(ctx)) }),
  )
  .get(
    '/api/admin/support/tickets/:id',
    operation({
      summary: 'One support ticket, with its thread and attachments',
      tag: TAG,
      access: 'admin',
      responses: { 200: { description: 'The ticket.', schema: SupportTicketDetailSchema }, 403: 'Not an administrator.', 404: 'No such ticket.' },
    }),
    async (c) => c.json(await runAdmin(c, (ctx) => getTicket(ctx, c.req.param('id'), 'opener-or-admin'))),
  )
  .patch(
    '/api/admin/support/tickets/:id',
    operation({
      summary: 'Change a support ticket’s status or assignee',
      tag: TAG,
      access: 'admin',
      body: TicketChangeSchema,
      responses: {
        200: { description: 'The ticket.', schema: SupportTicketDetailSchema },
        400: 'Nothing to change, or a value that is not allowed.',
        403: 'Not an administrator.',
        404: 'No such ticket.',
        409: STALE_WRITE,
        422: 'The assignee is not an active administrator of the organisation (errors.assigneeId).',
      },
    }),
    async (c) => c.json(await runAdmin(c, (ctx) => changeTicket(ctx, meta(c), c.req.param('id'), c.req.valid('json')))),
  )
  .post(
    '/api/admin/support/tickets/:id/messages',
    operation({
      summary: 'Answer a support ticket',
      description: 'An open ticket becomes pending (waiting for the opener). Mails the opener with a link to the ticket.',
      tag: TAG,
      access: 'admin',
      body: SupportReplySchema,
      idempotent: true,
      responses: { 201: { description: 'The ticket with the reply.', schema: SupportTicketDetailSchema }, 400: 'No text, or too long.', 403: 'Not an administrator.', 404: 'No such ticket.', 409: 'The ticket is closed.' },
    }),
    idempotent,
    async (c) => c.json(await runAdmin(c, (ctx) => replyToTicket(ctx, meta(c), c.req.param('id'), 'admin', c.req.valid('json').body)), 201),
  )
