import { and, asc, desc, eq, ilike, inArray, isNull, lt, or, sql, type SQL } from 'drizzle-orm'
import { memberships, users } from '#server/db/schema'
import { supportAttachments, supportMessages, supportTickets } from '#server/db/schema-admin'
import { recordAuditIn, type AuditAction } from '#server/domain/audit'
import { enqueueMail } from '#server/domain/mail'
import { Problem, problems } from '#server/http/problem'
import type { DomainContext } from '../tenancy/context'
import { refuseStaleWrite } from '../tenancy/edit-conflict'
import { recordChange } from '../tenancy/change-log'
import { isUuid } from '~/lib/schemas/uuid'
import type { SupportAttachment, SupportStatus, SupportTicket, SupportTicketDetail } from '~/lib/admin/support'
import { refOf, userRefs, type UserRef } from '../tenancy/user-refs'
import { decodeOpaque, encodeOpaque } from '#server/http/opaque'

/**
 * Support tickets (docs/admin/support.md): any active member opens one from Settings and follows
 * its thread; the organisation's administrators work them (status, assignee, replies). Tickets
 * are numbered per organisation (max + 1 under a per-tenant advisory lock). An administrator's
 * reply mails the opener; the opener's reply (and a new ticket) mails the assignee, or every
 * administrator while nobody is assigned. Every change is audited and announced as a
 * `SupportTicket` change. Attachments: support-attachments.ts.
 */

/** The JSON shapes are shared with the screens (app/lib/admin/support.ts). */
export type { SupportAttachment, SupportMessage, SupportStatus, SupportTicket, SupportTicketDetail } from '~/lib/admin/support'

/** What an audited change carries from the HTTP side: where it came from, and the portal's address for links in mail. */
export type SupportMeta = { ip?: string | undefined; correlationId?: string | undefined; publicUrl: string }

export const notFound = () => new Problem(problems.notFound('The support ticket was not found.'))

const ticketColumns = {
  id: supportTickets.id,
  number: supportTickets.number,
  subject: supportTickets.subject,
  body: supportTickets.body,
  status: supportTickets.status,
  openedBy: supportTickets.openedBy,
  assigneeId: supportTickets.assigneeId,
  revision: supportTickets.revision,
  updatedBy: supportTickets.updatedBy,
  createdAt: supportTickets.createdAt,
  updatedAt: supportTickets.updatedAt,
  closedAt: supportTickets.closedAt,
}
type TicketRow = {
  id: string
  number: number
  subject: string
  body: string
  status: string
  openedBy: string | null
  assigneeId: string | null
  revision: number
  updatedBy: string | null
  createdAt: Date
  updatedAt: Date
  closedAt: Date | null
}

export const attachmentColumns = {
  id: supportAttachments.id,
  ticketId: supportAttachments.ticketId,
  uploadedBy: supportAttachments.uploadedBy,
  fileName: supportAttachments.fileName,
  contentType: supportAttachments.contentType,
  sizeBytes: supportAttachments.sizeBytes,
  sha256: supportAttachments.sha256,
  blobKey: supportAttachments.blobKey,
  createdAt: supportAttachments.createdAt,
}
export type AttachmentRow = {
  id: string
  ticketId: string
  uploadedBy: string | null
  fileName: string
  contentType: string
  sizeBytes: number
  sha256: string
  blobKey: string
  createdAt: Date
}

export function attachmentUrl(ticketId: string, attachmentId: string): string {
  return `/api/support/tickets/${ticketId}/attachments/${attachmentId}`
}

export function toAttachment(row: AttachmentRow, refs: Map<string, UserRef>): SupportAttachment {
  return {
    id: row.id,
    ticketId: row.ticketId,
    fileName: row.fileName,
    contentType: row.contentType,
    sizeBytes: row.sizeBytes,
    sha256: row.sha256,
    uploadedBy: refOf(refs, row.uploadedBy),
    createdAtUtc: row.createdAt.toISOString(),
    downloadUrl: attachmentUrl(row.ticketId, row.id),
  }
}

function isAdmin(ctx: DomainContext): boolean {
  return ctx.actor.roleKey === 'admin'
}

/**
 * The ticket `id` as `ctx.actor` may see it: `mine` (the user side) only the actor's own,
 * `admin` (the admin side, and downloads) any of the organisation's for an administrator, the
 * opener's own otherwise. Anything else, and another organisation's id, reads as 404.
 */
export async function findTicket(ctx: DomainContext, id: string, scope: 'mine' | 'opener-or-admin', options: { lock?: boolean } = {}): Promise<TicketRow> {
  if (!isUuid(id)) throw notFound()
  const conditions = [eq(supportTickets.tenantId, ctx.actor.tenantId), eq(supportTickets.id, id)]
  if (scope === 'mine' || !isAdmin(ctx)) conditions.push(eq(supportTickets.openedBy, ctx.actor.userId))
  const query = ctx.tx
    .select(ticketColumns)
    .from(supportTickets)
    .where(and(...conditions))
    .limit(1)
  const [row] = options.lock ? await query.for('update') : await query
  if (!row) throw notFound()
  return row
}

async function countsOf(ctx: DomainContext, ids: string[]): Promise<{ messages: Map<string, number>; attachments: Map<string, number> }> {
  if (ids.length === 0) return { messages: new Map(), attachments: new Map() }
  const [messageRows, attachmentRows] = await Promise.all([
    ctx.tx
      .select({ ticketId: supportMessages.ticketId, count: sql<number>`count(*)::int` })
      .from(supportMessages)
      .where(and(eq(supportMessages.tenantId, ctx.actor.tenantId), inArray(supportMessages.ticketId, ids)))
      .groupBy(supportMessages.ticketId),
    ctx.tx
      .select({ ticketId: supportAttachments.ticketId, count: sql<number>`count(*)::int` })
      .from(supportAttachments)
      .where(and(eq(supportAttachments.tenantId, ctx.actor.tenantId), inArray(supportAttachments.ticketId, ids)))
      .groupBy(supportAttachments.ticketId),
  ])
  return {
    messages: new Map(messageRows.map((r) => [r.ticketId, Number(r.count)])),
    attachments: new Map(attachmentRows.map((r) => [r.ticketId, Number(r.count)])),
  }
}

async function toTickets(ctx: DomainContext, rows: TicketRow[]): Promise<SupportTicket[]> {
  const [refs, counts] = await Promise.all([
    userRefs(
      ctx,
      rows.flatMap((r) => [r.openedBy, r.assigneeId]),
    ),
    countsOf(
      ctx,
      rows.map((r) => r.id),
    ),
  ])
  return rows.map((row) => ({
    id: row.id,
    number: row.number,
    subject: row.subject,
    body: row.body,
    status: row.status as SupportStatus,
    openedBy: refOf(refs, row.openedBy),
    assignee: refOf(refs, row.assigneeId),
    messageCount: counts.messages.get(row.id) ?? 0,
    attachmentCount: counts.attachments.get(row.id) ?? 0,
    revision: row.revision,
    createdAtUtc: row.createdAt.toISOString(),
    updatedAtUtc: row.updatedAt.toISOString(),
    closedAtUtc: row.closedAt?.toISOString() ?? null,
  }))
}

async function detailOf(ctx: DomainContext, row: TicketRow): Promise<SupportTicketDetail> {
  const [ticket] = await toTickets(ctx, [row])
  if (!ticket) throw new Error('ticket view not made')
  const [messages, attachments] = await Promise.all([
    ctx.tx
      .select({ id: supportMessages.id, authorId: supportMessages.authorId, body: supportMessages.body, createdAt: supportMessages.createdAt })
      .from(supportMessages)
      .where(and(eq(supportMessages.tenantId, ctx.actor.tenantId), eq(supportMessages.ticketId, row.id)))
      .orderBy(asc(supportMessages.createdAt), asc(supportMessages.id)),
    ctx.tx
      .select(attachmentColumns)
      .from(supportAttachments)
      .where(and(eq(supportAttachments.tenantId, ctx.actor.tenantId), eq(supportAttachments.ticketId, row.id)))
      .orderBy(asc(supportAttachments.createdAt), asc(supportAttachments.id)),
  ])
  const refs = await userRefs(ctx, [...messages.map((m) => m.authorId), ...attachments.map((a) => a.uploadedBy)])
  return {
    ...ticket,
    messages: messages.map((m) => ({
      id: m.id,
      author: refOf(refs, m.authorId),
      fromSupport: m.authorId === null || m.authorId !== row.openedBy,
      body: m.body,
      createdAtUtc: m.createdAt.toISOString(),
    })),
    attachments: attachments.map((a) => toAttachment(a, refs)),
  }
}

export async function auditSupport(ctx: DomainContext, meta: SupportMeta, action: AuditAction, ticketId: string, data: Record<string, unknown>): Promise<void> {
  await recordAuditIn(ctx.tx, {
    tenantId: ctx.actor.tenantId,
    actorUserId: ctx.actor.userId,
    action,
    targetType: 'SupportTicket',
    targetId: ticketId,
    ip: meta.ip,
    correlationId: meta.correlationId,
    data,
    at: ctx.now,
  })
}

/** The organisation's active administrators, by name: whom a ticket may be assigned to. */
export async function supportAssignees(ctx: DomainContext): Promise<Array<UserRef & { email: string }>> {
  return ctx.tx
    .select({ id: users.id, displayName: users.displayName, email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.tenantId, ctx.actor.tenantId), eq(memberships.roleKey, 'admin'), eq(memberships.status, 'active')))
    .orderBy(asc(users.displayName), asc(users.id))
}

async function emailsOf(ctx: DomainContext, ids: string[]): Promise<Array<{ id: string; email: string; displayName: string }>> {
  if (ids.length === 0) return []
  return ctx.tx.select({ id: users.id, email: users.email, displayName: users.displayName }).from(users).where(inArray(users.id, ids))
}

function ticketLabel(row: Pick<TicketRow, 'number' | 'subject'>): string {
  return `#${row.number} ${row.subject}`
}

/** The opener's words reach support: the assignee, or every administrator while nobody is assigned (never the writer). */
async function mailSupport(ctx: DomainContext, meta: SupportMeta, row: TicketRow, what: 'opened' | 'replied', text: string): Promise<void> {
  const to = row.assigneeId ? await emailsOf(ctx, [row.assigneeId]) : await supportAssignees(ctx)
  const [writer] = await emailsOf(ctx, [ctx.actor.userId])
  const from = writer?.displayName ?? 'Someone'
  for (const person of to) {
    if (person.id === ctx.actor.userId) continue
    await enqueueMail(ctx.tx, {
      tenantId: ctx.actor.tenantId,
      to: person.email,
      template: 'support-reply',
      variables: {
        publicUrl: meta.publicUrl,
        recipientName: person.displayName,
        toSupport: true,
        opened: what === 'opened',
        writerName: from,
        ticketLabel: ticketLabel(row),
        message: text,
        ticketUrl: `${meta.publicUrl}/admin/support/${row.id}`,
      },
    })
  }
}

/** An administrator's reply reaches the opener (unless the opener wrote it, or is gone). */
async function mailOpener(ctx: DomainContext, meta: SupportMeta, row: TicketRow, text: string): Promise<void> {
  if (!row.openedBy || row.openedBy === ctx.actor.userId) return
  const [opener] = await emailsOf(ctx, [row.openedBy])
  if (!opener) return
  await enqueueMail(ctx.tx, {
    tenantId: ctx.actor.tenantId,
    to: opener.email,
    template: 'support-reply',
    variables: {
      publicUrl: meta.publicUrl,
      recipientName: opener.displayName,
      toSupport: false,
      opened: false,
      writerName: 'Support',
      ticketLabel: ticketLabel(row),
      message: text,
      ticketUrl: `${meta.publicUrl}/settings/support/${row.id}`,
    },
  })
}

export type NewTicket = { subject: string; body: string }

/** POST /api/support/tickets: any active member (read-only too). Numbered max + 1 within the organisation. */
export async function openTicket(ctx: DomainContext, meta: SupportMeta, input: NewTicket): Promise<SupportTicketDetail> {
  await ctx.tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`support-number:${ctx.actor.tenantId}`}, 0))`)
  const [next] = await ctx.tx
    .select({ number: sql<number>`coalesce(max(${supportTickets.number}), 0)::int + 1` })
    .from(supportTickets)
    .where(eq(supportTickets.tenantId, ctx.actor.tenantId))
  const [row] = await ctx.tx
    .insert(supportTickets)
    .values({
      tenantId: ctx.actor.tenantId,
      number: Number(next?.number ?? 1),
      subject: input.subject,
      body: input.body,
      status: 'open',
      openedBy: ctx.actor.userId,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    })
    .returning(ticketColumns)
  if (!row) throw new Error('support ticket not stored')
  await auditSupport(ctx, meta, 'admin.support.opened', row.id, { number: row.number, subject: row.subject })
  await recordChange(ctx, 'SupportTicket', row.id, 'Created')
  await mailSupport(ctx, meta, row, 'opened', input.body)
  return detailOf(ctx, row)
}

export type TicketListQuery = {
  limit: number
  after?: string | undefined
  status?: SupportStatus | undefined
  assigneeId?: string | undefined
  q?: string | undefined
}

/** A page cursor: the number of the last ticket of a page, opaque to clients (base64url JSON). */
function encodeTicketCursor(number: number): string {
  return encodeOpaque({ n: number })
}

function decodeTicketCursor(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined
  try {
    const parsed = decodeOpaque(value) as { n?: unknown }
    if (typeof parsed.n === 'number' && Number.isInteger(parsed.n) && parsed.n > 0) return parsed.n
  } catch {
    // Answered below.
  }
  throw new Problem(problems.badRequest('The paging cursor is not valid.', { after: ['The paging cursor is not valid. Start again from the first page.'] }))
}

/** Newest first (by number, which grows with time), keyset paged on the number. */
async function listTickets(ctx: DomainContext, query: TicketListQuery, extra: SQL[]): Promise<{ items: SupportTicket[]; nextCursor: string | null }> {
  const after = decodeTicketCursor(query.after)
  const conditions: SQL[] = [eq(supportTickets.tenantId, ctx.actor.tenantId), ...extra]
  if (query.status) conditions.push(eq(supportTickets.status, query.status))
  if (after !== undefined) conditions.push(lt(supportTickets.number, after))
  const rows = await ctx.tx
    .select(ticketColumns)
    .from(supportTickets)
    .where(and(...conditions))
    .orderBy(desc(supportTickets.number))
    .limit(query.limit + 1)
  const page = rows.slice(0, query.limit)
  const last = page[page.length - 1]
  return { items: await toTickets(ctx, page), nextCursor: rows.length > query.limit && last ? encodeTicketCursor(last.number) : null }
}

/** GET /api/support/tickets: the actor's own tickets. */
export function listMyTickets(ctx: DomainContext, query: TicketListQuery) {
  return listTickets(ctx, query, [eq(supportTickets.openedBy, ctx.actor.userId)])
}

/** GET /api/admin/support/tickets: every ticket of the organisation; `assigneeId` may be `none`; `q` matches the subject, the body or `#number`. */
export function listAllTickets(ctx: DomainContext, query: TicketListQuery) {
  const extra: SQL[] = []
  if (query.assigneeId === 'none') extra.push(isNull(supportTickets.assigneeId))
  else if (query.assigneeId) extra.push(eq(supportTickets.assigneeId, query.assigneeId))
  const q = query.q?.trim()
  if (q) {
    const number = /^#?(\d{1,9})$/.exec(q)?.[1]
    const pattern = `%${q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`
    const match = or(ilike(supportTickets.subject, pattern), ilike(supportTickets.body, pattern), number ? eq(supportTickets.number, Number(number)) : undefined)
    if (match) extra.push(match)
  }
  return listTickets(ctx, query, extra)
}

/** GET /api/support/tickets/{id} (mine) and GET /api/admin/support/tickets/{id} (any). */
export async function getTicket(ctx: DomainContext, id: string, scope: 'mine' | 'opener-or-admin'): Promise<SupportTicketDetail> {
  return detailOf(ctx, await findTicket(ctx, id, scope))
}

const closedProblem = () =>
  new Problem({
    status: 409,
    title: 'Conflict',
    detail: 'This ticket is closed: it takes no more replies. Open a new ticket, or ask support to reopen it.',
    code: 'KR_SUPPORT_CLOSED',
  })

async function setTicket(ctx: DomainContext, id: string, values: Partial<{ status: string; assigneeId: string | null; closedAt: Date | null }>): Promise<TicketRow> {
  const [row] = await ctx.tx
    .update(supportTickets)
    // Every change of its status or assignee (a reply's too) moves its revision (issue 36 §4).
    .set({ ...values, revision: sql`${supportTickets.revision} + 1`, updatedBy: ctx.actor.userId, updatedAt: ctx.now })
    .where(and(eq(supportTickets.tenantId, ctx.actor.tenantId), eq(supportTickets.id, id)))
    .returning(ticketColumns)
  if (!row) throw notFound()
  return row
}

/**
 * A reply: POST /api/support/tickets/{id}/messages (`side` user: the opener; the ticket goes back
 * to open when it was pending or resolved) and POST /api/admin/support/tickets/{id}/messages
 * (`side` admin: an open ticket becomes pending, waiting for the opener). A closed ticket takes no reply.
 */
export async function replyToTicket(ctx: DomainContext, meta: SupportMeta, id: string, side: 'user' | 'admin', body: string): Promise<SupportTicketDetail> {
  const found = await findTicket(ctx, id, side === 'user' ? 'mine' : 'opener-or-admin', { lock: true })
  if (found.status === 'closed') throw closedProblem()
  await ctx.tx.insert(supportMessages).values({ tenantId: ctx.actor.tenantId, ticketId: found.id, authorId: ctx.actor.userId, body, createdAt: ctx.now })
  const status = side === 'user' ? (found.status === 'pending' || found.status === 'resolved' ? 'open' : found.status) : found.status === 'open' ? 'pending' : found.status
  const row = await setTicket(ctx, found.id, { status })
  await auditSupport(ctx, meta, 'admin.support.replied', row.id, { side, number: row.number, ...(status !== found.status ? { status: { from: found.status, to: status } } : {}) })
  await recordChange(ctx, 'SupportTicket', row.id, 'Updated')
  if (side === 'admin') await mailOpener(ctx, meta, row, body)
  else await mailSupport(ctx, meta, row, 'replied', body)
  return detailOf(ctx, row)
}

export type TicketChange = { status?: SupportStatus | undefined; assigneeId?: string | null | undefined; expectedRevision?: number | undefined }

/** PATCH /api/admin/support/tickets/{id}: status and assignee (an active administrator of the organisation, or null). */
export async function changeTicket(ctx: DomainContext, meta: SupportMeta, id: string, change: TicketChange): Promise<SupportTicketDetail> {
  const found = await findTicket(ctx, id, 'opener-or-admin', { lock: true })
  // Changed by another administrator (or moved by a reply) since it was opened: 409 KR_EDIT_CONFLICT.
  await refuseStaleWrite(ctx, { ...found, what: 'ticket' }, change.expectedRevision, () => detailOf(ctx, found))
  const values: Partial<{ status: string; assigneeId: string | null; closedAt: Date | null }> = {}
  const data: Record<string, unknown> = { number: found.number }
  if (change.assigneeId !== undefined && change.assigneeId !== found.assigneeId) {
    if (change.assigneeId !== null) {
      const admins = await supportAssignees(ctx)
      if (!admins.some((a) => a.id === change.assigneeId)) {
        throw new Problem({
          ...problems.badRequest('The assignee must be an administrator of this organisation.', { assigneeId: ['Choose an administrator of this organisation.'] }),
          status: 422,
          code: 'KR_SUPPORT_ASSIGNEE',
        })
      }
    }
    values.assigneeId = change.assigneeId
    data.assigneeId = { from: found.assigneeId, to: change.assigneeId }
  }
  if (change.status !== undefined && change.status !== found.status) {
    values.status = change.status
    values.closedAt = change.status === 'closed' ? ctx.now : null
    data.status = { from: found.status, to: change.status }
  }
  if (Object.keys(values).length === 0) return detailOf(ctx, found)
  const row = await setTicket(ctx, found.id, values)
  await auditSupport(ctx, meta, 'admin.support.changed', row.id, data)
  await recordChange(ctx, 'SupportTicket', row.id, 'Updated')
  return detailOf(ctx, row)
}
