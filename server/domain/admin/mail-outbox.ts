import { and, desc, eq, inArray, isNull, or, sql, type SQL } from 'drizzle-orm'
import { mailOutbox } from '#server/db/schema'
import { mailTransportHealth } from '#server/db/schema-settings'
import { recordAuditIn } from '#server/domain/audit'
import { recordChange } from '#server/domain/tenancy/change-log'
import type { DomainContext } from '#server/domain/tenancy/context'
import { pageOf, type Cursor } from '#server/domain/tenancy/paging'
import { isUuid } from '~/lib/schemas/uuid'
import { Problem, problems } from '#server/http/problem'
import {
  MAIL_CANCELLABLE,
  MAIL_RETRYABLE,
  MAIL_STATUS_LABELS,
  type MailMessageDetail,
  type MailMessageSummary,
  type MailStatus,
  type MailTransportHealth,
  type MailTransportsResponse,
} from '~/lib/admin/mail-outbox'
import type { AuditMeta } from './packages'

/**
 * Administration › Mail outbox (docs/admin/mail.md "The outbox page"): the organisation's
 * messages, one message, retry and cancel, and the health of the transports its mail goes through.
 *
 * mail_outbox is not under row-level security (mail before an organisation exists has no tenant),
 * so every query here names the admin's tenant itself: another organisation's message is not found.
 */

/**
 * Whose mail a caller sees: their organisation's, and for a platform operator (PLATFORM_OPERATOR_EMAILS)
 * also the mail that belongs to no organisation — a reset or registration asked from the sign-in
 * page (issue 36 §6) — so that someone can act on it when it is stuck.
 */
export type OutboxScope = { platform: boolean }

function visible(ctx: DomainContext, scope: OutboxScope): SQL | undefined {
  const own = eq(mailOutbox.tenantId, ctx.actor.tenantId)
  return scope.platform ? or(own, isNull(mailOutbox.tenantId)) : own
}

export type MailOutboxFilter = { status?: MailStatus | undefined; template?: string | undefined; to?: string | undefined; after?: Cursor | undefined; limit: number }

const notFound = () => new Problem(problems.notFound('There is no such message in the outbox.'))

/** Postgres keeps microseconds, a cursor milliseconds: page on the millisecond so no row is skipped or repeated. */
const createdMs = sql<Date>`date_trunc('milliseconds', ${mailOutbox.createdAt})`

const summaryColumns = {
  id: mailOutbox.id,
  to: mailOutbox.toAddress,
  subject: mailOutbox.subject,
  template: mailOutbox.template,
  status: mailOutbox.status,
  attempts: mailOutbox.attempts,
  lastError: mailOutbox.lastError,
  createdAt: mailOutbox.createdAt,
  sentAt: mailOutbox.sentAt,
  nextAttemptAt: mailOutbox.nextAttemptAt,
  lastFailureAt: mailOutbox.lastFailureAt,
  transport: mailOutbox.transport,
  tenantId: mailOutbox.tenantId,
}

type SummaryRow = {
  id: string
  to: string
  subject: string
  template: string
  status: string
  attempts: number
  lastError: string | null
  createdAt: Date
  sentAt: Date | null
  nextAttemptAt: Date
  lastFailureAt: Date | null
  transport: string | null
  tenantId: string | null
}

function toSummary(row: SummaryRow): MailMessageSummary {
  return {
    id: row.id,
    to: row.to,
    subject: row.subject,
    template: row.template,
    status: row.status as MailStatus,
    attempts: row.attempts,
    lastError: row.lastError,
    createdAtUtc: row.createdAt.toISOString(),
    sentAtUtc: row.sentAt?.toISOString() ?? null,
    nextAttemptAtUtc: row.nextAttemptAt.toISOString(),
    lastFailureUtc: row.lastFailureAt?.toISOString() ?? null,
    transport: row.transport,
    withoutOrganisation: row.tenantId === null,
  }
}

function ownMessage(ctx: DomainContext, id: string, scope: OutboxScope): SQL | undefined {
  return and(visible(ctx, scope), eq(mailOutbox.id, id))
}

/** `%`, `_` and `\` typed into the search match themselves. */
function containing(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

/** GET /api/admin/mail-outbox: newest first, keyset-paged, with the templates the organisation's mail used (for the filter). */
export async function listMailOutbox(ctx: DomainContext, filter: MailOutboxFilter, scope: OutboxScope = { platform: false }): Promise<{ items: MailMessageSummary[]; nextCursor: string | null; templates: string[] }> {
  const rows = await ctx.tx
    .select({ ...summaryColumns, createdAt: createdMs.mapWith(mailOutbox.createdAt) })
    .from(mailOutbox)
    .where(
      and(
        visible(ctx, scope),
        filter.status === undefined ? undefined : eq(mailOutbox.status, filter.status),
        filter.template === undefined ? undefined : eq(mailOutbox.template, filter.template),
        filter.to === undefined ? undefined : sql`${mailOutbox.toAddress} ilike ${containing(filter.to)}`,
        filter.after === undefined ? undefined : sql`(${createdMs}, ${mailOutbox.id}) < (${filter.after.createdAt.toISOString()}::timestamptz, ${filter.after.id}::uuid)`,
      ),
    )
    .orderBy(desc(createdMs), desc(mailOutbox.id))
    .limit(filter.limit + 1)
  const page = pageOf(rows, filter.limit)
  const templates = await ctx.tx.selectDistinct({ template: mailOutbox.template }).from(mailOutbox).where(visible(ctx, scope)).orderBy(mailOutbox.template)
  return { items: page.rows.map(toSummary), nextCursor: page.nextCursor, templates: templates.map((t) => t.template) }
}

/** GET /api/admin/mail-outbox/{id}: everything about one message, its bodies included. */
export async function getMailMessage(ctx: DomainContext, id: string, scope: OutboxScope = { platform: false }): Promise<MailMessageDetail> {
  if (!isUuid(id)) throw notFound()
  const [row] = await ctx.tx
    .select({
      ...summaryColumns,
      textBody: mailOutbox.textBody,
      htmlBody: mailOutbox.htmlBody,
      claimedAt: mailOutbox.claimedAt,
      cancelledAt: mailOutbox.cancelledAt,
    })
    .from(mailOutbox)
    .where(ownMessage(ctx, id, scope))
  if (!row) throw notFound()
  return {
    ...toSummary(row),
    textBody: row.textBody,
    htmlBody: row.htmlBody,
    claimedAtUtc: row.claimedAt?.toISOString() ?? null,
    cancelledAtUtc: row.cancelledAt?.toISOString() ?? null,
  }
}

function wrongState(status: MailStatus, action: 'retried' | 'cancelled'): Problem {
  const can = action === 'retried' ? 'Only a queued or dead message can be sent again.' : 'Only a queued or dead message can be cancelled.'
  const why = status === 'sending' ? 'It is being sent right now.' : status === 'sent' ? 'It was sent already.' : status === 'cancelled' ? 'It was cancelled.' : ''
  return new Problem({
    status: 409,
    title: 'Conflict',
    detail: `This message is ${MAIL_STATUS_LABELS[status].toLowerCase()}. ${why} ${can}`.replace(/\s+/g, ' ').trim(),
    code: 'KR_MAIL_STATE',
  })
}

async function change(
  ctx: DomainContext,
  id: string,
  meta: AuditMeta,
  action: 'retried' | 'cancelled',
  from: readonly MailStatus[],
  set: (status: MailStatus) => Record<string, unknown>,
  scope: OutboxScope,
): Promise<MailMessageDetail> {
  if (!isUuid(id)) throw notFound()
  // Locked so the worker's claim (SKIP LOCKED) passes it by while the admin changes it.
  const [current] = await ctx.tx
    .select({ status: mailOutbox.status, attempts: mailOutbox.attempts, to: mailOutbox.toAddress, template: mailOutbox.template })
    .from(mailOutbox)
    .where(ownMessage(ctx, id, scope))
    .for('update')
  if (!current) throw notFound()
  const status = current.status as MailStatus
  if (!from.includes(status)) throw wrongState(status, action)
  await ctx.tx
    .update(mailOutbox)
    .set(set(status))
    .where(and(ownMessage(ctx, id, scope), inArray(mailOutbox.status, [...from])))
  await recordChange(ctx, 'MailOutbox', id, 'Updated')
  await recordAuditIn(ctx.tx, {
    tenantId: ctx.actor.tenantId,
    actorUserId: ctx.actor.userId,
    action: action === 'retried' ? 'admin.mail.retried' : 'admin.mail.cancelled',
    targetType: 'MailOutbox',
    targetId: id,
    ip: meta.ip,
    correlationId: meta.correlationId,
    data: { to: current.to, template: current.template, previousStatus: status, attempts: current.attempts },
    at: ctx.now,
  })
  return getMailMessage(ctx, id, scope)
}

/**
 * POST /api/admin/mail-outbox/{id}/retry: a queued message is tried at the next pass instead of
 * after its back-off; a dead one is queued again with a fresh count of attempts.
 */
export function retryMailMessage(ctx: DomainContext, id: string, meta: AuditMeta, scope: OutboxScope = { platform: false }): Promise<MailMessageDetail> {
  return change(
    ctx,
    id,
    meta,
    'retried',
    MAIL_RETRYABLE,
    (status) => ({
      status: 'queued',
      nextAttemptAt: ctx.now,
      claimedAt: null,
      ...(status === 'dead' && { attempts: 0 }),
    }),
    scope,
  )
}

/** POST /api/admin/mail-outbox/{id}/cancel: a queued or dead message is never sent. */
export function cancelMailMessage(ctx: DomainContext, id: string, meta: AuditMeta, scope: OutboxScope = { platform: false }): Promise<MailMessageDetail> {
  return change(ctx, id, meta, 'cancelled', MAIL_CANCELLABLE, () => ({ status: 'cancelled', cancelledAt: ctx.now, claimedAt: null }), scope)
}

type HealthRow = typeof mailTransportHealth.$inferSelect

function health(row: HealthRow | undefined): Pick<MailTransportHealth, 'failureCount' | 'consecutiveFailures' | 'lastFailureUtc' | 'lastSuccessUtc' | 'lastError'> {
  return {
    failureCount: row?.failureCount ?? 0,
    consecutiveFailures: row?.consecutiveFailures ?? 0,
    lastFailureUtc: row?.lastFailureAt?.toISOString() ?? null,
    lastSuccessUtc: row?.lastSuccessAt?.toISOString() ?? null,
    lastError: row?.lastError ?? null,
  }
}

/** The failure-tracking rows of the organisation's own transport and of the instance's ones. */
export async function readTransportHealth(ctx: DomainContext): Promise<Map<string, HealthRow>> {
  const rows = await ctx.tx
    .select()
    .from(mailTransportHealth)
    .where(inArray(mailTransportHealth.key, [`tenant:${ctx.actor.tenantId}`, 'instance', 'file']))
  return new Map(rows.map((r) => [r.key, r]))
}

/**
 * GET /api/admin/mail-outbox/transports: the organisation's own SMTP server (when it saved one, or
 * used one before), and the instance's transport when the organisation's mail goes there.
 */
export function mailTransportsOf(
  tenantId: string,
  rows: Map<string, HealthRow>,
  own: { configured: boolean; description: string | null },
  instance: { key: 'instance' | 'file'; description: string } | null,
): MailTransportsResponse {
  const items: MailTransportHealth[] = []
  const ownKey = `tenant:${tenantId}`
  if (own.configured || rows.has(ownKey)) {
    items.push({ key: ownKey, kind: 'organisation', label: 'Your organisation’s SMTP server', description: own.description, inUse: own.configured, ...health(rows.get(ownKey)) })
  }
  if (instance && !own.configured) {
    items.push({
      key: instance.key,
      kind: instance.key,
      label: instance.key === 'instance' ? 'This server’s SMTP server' : 'Files on this server (for development)',
      description: instance.description,
      inUse: true,
      ...health(rows.get(instance.key)),
    })
  }
  return { items, noTransport: !own.configured && instance === null }
}
