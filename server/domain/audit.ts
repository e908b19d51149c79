import type { Database, Tx } from '#server/db/client'
import { auditEvents } from '#server/db/schema'
import { withTenant, withUser } from '#server/db/tenancy'

export type AuditAction =
  | 'auth.signin'
  | 'auth.signin.failed'
  | 'auth.lockout'
  | 'auth.signout'
  | 'auth.mfa.enrolled'
  | 'auth.mfa.verified'
  | 'auth.mfa.failed'
  | 'auth.password.changed'
  | 'auth.password.reset'
  | 'auth.password.reset.requested'
  | 'auth.registered'
  | 'auth.email.verified'
  | 'auth.device.registered'
  | 'auth.device.revoked'
  | 'auth.oidc.linked'
  | 'auth.oidc.failed'
  | 'documents.folder.created'
  | 'documents.folder.changed'
  | 'documents.document.created'
  | 'documents.document.changed'
  | 'documents.document.renumbered'
  | 'documents.metadata.changed'
  | 'documents.revision.issued'
  | 'documents.permissions.changed'
  | 'documents.naming.changed'
  | 'documents.fields.changed'
  | 'documents.pin.placed'
  | 'documents.pin.removed'
  | 'documents.overlay.changed'
  | 'doc-control.party.changed'
  | 'doc-control.matrix.changed'
  | 'doc-control.deliverables.changed'
  | 'doc-control.template.changed'
  | 'doc-control.workflow.started'
  | 'doc-control.workflow.acted'
  | 'doc-control.set.changed'
  | 'doc-control.set.published'
  | 'doc-control.transmittal.changed'
  | 'doc-control.transmittal.sent'
  | 'doc-control.transmittal.received'
  | 'doc-control.transmittal.packaged'
  | 'doc-control.numbering.changed'
  | 'exports.job'
  | 'admin.user.changed'
  | 'admin.user.deactivated'
  | 'admin.user.reactivated'
  | 'admin.user.deleted'
  | 'admin.user.password.reset'
  | 'admin.user.password.set'
  | 'admin.member.added'
  | 'admin.member.role.changed'
  | 'admin.invite.created'
  | 'admin.invite.resent'
  | 'admin.invite.cancelled'
  | 'admin.invite.claimed'
  | 'admin.project-invite.created'
  | 'admin.project-invite.cancelled'
  | 'admin.project-invite.claimed'
  | 'admin.join-request.created'
  | 'admin.join-request.approved'
  | 'admin.join-request.declined'
  | 'admin.join-request.withdrawn'
  | 'admin.device.revoked'
  | 'admin.package.changed'
  | 'admin.upload.aborted'
  | 'admin.support.opened'
  | 'admin.support.replied'
  | 'admin.support.changed'
  | 'admin.retention.changed'
  | 'admin.retention.ran'
  | 'admin.audit.exported'
  | 'admin.audit.verified'
  | 'admin.config.changed'
  | 'admin.config.rolled-back'
  | 'admin.config.tested'
  | 'admin.email-template.changed'
  | 'admin.email-template.reset'
  | 'admin.email-template.tested'
  | 'admin.mail.retried'
  | 'admin.mail.cancelled'
  | 'settings.user.changed'
  | 'settings.site.changed'
  | 'settings.admin.changed'
  | 'settings.notifications.changed'
  | 'settings.appearance.changed'
  | 'auth.email.change.requested'
  | 'auth.email.changed'
  | 'auth.mfa.removed'
  | 'auth.sessions.revoked'
  // Billing (issue 16, docs/billing.md): a checkout started by an admin, completed by the provider's webhook.
  | 'billing.checkout.started'
  | 'billing.checkout.completed'
  | 'billing.licence.changed'
  // Store subscriptions (issue 16, docs/store-subscriptions.md).
  | 'billing.store.link-started'
  | 'billing.store.linked'
  | 'billing.store.verified'
  | 'licensing.organisation.created'
  | 'licensing.licence.changed'
  | 'licensing.seat.revoked'
  | 'licensing.organisation.switched'

export type AuditInput = {
  tenantId?: string | undefined
  actorUserId?: string | undefined
  action: AuditAction
  targetType?: string | undefined
  targetId?: string | undefined
  ip?: string | undefined
  correlationId?: string | undefined
  data?: Record<string, unknown> | undefined
  /** When it happened (the domain clock); now when absent. */
  at?: Date | undefined
}

/** Appends an audit event: inside the tenant when there is one, as an untenanted event otherwise. */
export async function recordAudit(db: Database, input: AuditInput): Promise<void> {
  const write = (tx: Tx) =>
    tx.insert(auditEvents).values({
      tenantId: input.tenantId ?? null,
      actorUserId: input.actorUserId,
      action: input.action,
      targetType: input.targetType,
      targetId: input.targetId,
      ip: input.ip,
      correlationId: input.correlationId,
      data: input.data,
    })
  if (input.tenantId) await withTenant(db, input.tenantId, write)
  else await withUser(db, input.actorUserId, write)
}

/** Appends an audit event of the tenant inside the caller's transaction: it is stored with the change or not at all. */
export async function recordAuditIn(tx: Tx, input: AuditInput & { tenantId: string }): Promise<void> {
  await tx.insert(auditEvents).values({
    tenantId: input.tenantId,
    actorUserId: input.actorUserId,
    action: input.action,
    targetType: input.targetType,
    targetId: input.targetId,
    ip: input.ip,
    correlationId: input.correlationId,
    data: input.data,
    createdAt: input.at,
  })
}
