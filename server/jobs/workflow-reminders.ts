import { and, eq, isNull, lte, sql } from 'drizzle-orm'
import type { Database } from '#server/db/client'
import { tenants, users } from '#server/db/schema'
import { workflows, workflowTasks } from '#server/db/schema-doc-control'
import { withTenant } from '#server/db/tenancy'
import { linksOf, mailReminder, templatesOf, type ReminderLinks } from '#server/domain/doc-control/workflow-store'
import { byNumber, revisionShapes } from '#server/domain/doc-control/workflow-views'
import { REMINDER_LEAD_MS } from '#server/domain/doc-control/working-days'
import type { DomainContext } from '#server/domain/tenancy/context'
import type { Logger } from '#server/http/logger'
import { startPeriodic, type PeriodicJob } from './periodic'

/** Tasks reminded per tenant transaction; the next batch follows at once. */
const BATCH = 200

/**
 * The day-before-due reminder (docs/doc-control.md "Due dates"): every pending task of an active
 * review due within a day (or already past due) that has had no reminder gets one `workflow-due`
 * mail through the outbox, and `reminder_sent_at` marks it in the same transaction, so it is sent
 * once. Tasks are tenant rows under row-level security: the pass walks the tenants and works in
 * each one's transaction; SKIP LOCKED lets several instances run it at once without sending twice.
 */
export async function sendWorkflowReminders(db: Database, now: Date, links: ReminderLinks): Promise<number> {
  let sent = 0
  for (const tenant of await db.select({ id: tenants.id }).from(tenants)) {
    for (;;) {
      const count = await withTenant(db, tenant.id, (tx) => remindBatch({ tx, actor: { tenantId: tenant.id, userId: '', roleKey: 'read-only' }, now }, links))
      sent += count
      if (count < BATCH) break
    }
  }
  return sent
}

async function remindBatch(ctx: DomainContext, links: ReminderLinks): Promise<number> {
  const due = await ctx.tx
    .select({
      id: workflowTasks.id,
      workflowId: workflowTasks.workflowId,
      step: workflowTasks.step,
      dueAt: workflowTasks.dueAt,
      email: users.email,
      displayName: users.displayName,
      assigneeId: workflowTasks.assigneeId,
      projectId: workflows.projectId,
      templateVersionId: workflows.templateVersionId,
    })
    .from(workflowTasks)
    .innerJoin(workflows, and(eq(workflows.tenantId, workflowTasks.tenantId), eq(workflows.id, workflowTasks.workflowId)))
    .innerJoin(users, eq(users.id, workflowTasks.assigneeId))
    .where(
      and(
        eq(workflowTasks.tenantId, ctx.actor.tenantId),
        eq(workflowTasks.status, 'pending'),
        eq(workflows.status, 'active'),
        isNull(workflowTasks.reminderSentAt),
        lte(workflowTasks.dueAt, new Date(ctx.now.getTime() + REMINDER_LEAD_MS)),
      ),
    )
    .orderBy(workflowTasks.dueAt)
    .limit(BATCH)
    .for('update', { of: workflowTasks, skipLocked: true })
  if (due.length === 0) return 0
  const workflowIds = [...new Set(due.map((d) => d.workflowId))]
  const revisionLinks = (await linksOf(ctx, workflowIds)).filter((l) => l.current)
  const shapes = await revisionShapes(
    ctx,
    revisionLinks.map((l) => l.revisionId),
  )
  const templates = await templatesOf(
    ctx,
    due.map((d) => d.templateVersionId),
  )
  for (const task of due) {
    const revisions = byNumber(revisionLinks.filter((l) => l.workflowId === task.workflowId).flatMap((l) => shapes.get(l.revisionId) ?? []))
    const stepName = templates.get(task.templateVersionId)?.steps[task.step]?.name ?? `Step ${task.step + 1}`
    await mailReminder(ctx, links, { id: task.workflowId, projectId: task.projectId, stepName, revisions }, task, task.dueAt)
    await ctx.tx
      .update(workflowTasks)
      .set({ reminderSentAt: ctx.now })
      .where(and(eq(workflowTasks.tenantId, ctx.actor.tenantId), eq(workflowTasks.id, task.id), sql`${workflowTasks.reminderSentAt} is null`))
  }
  return due.length
}

/** Runs the reminders every `intervalMs` (an hour by default), one pass at a time, until stopped. */
export function startWorkflowReminders(options: { db: Database; logger: Logger; links: ReminderLinks; intervalMs?: number }): PeriodicJob {
  const { db, logger, links, intervalMs = 60 * 60_000 } = options
  return startPeriodic({
    name: 'workflow reminders',
    lease: { db },
    intervalMs,
    logger,
    pass: async () => {
      const sent = await sendWorkflowReminders(db, new Date(), links)
      if (sent > 0) logger.info({ sent }, 'workflow due reminders queued')
    },
  })
}
