import type { Database } from '#server/db/client'
import { mailOutbox } from '#server/db/schema'

/**
 * Mail is written to the outbox in the same flow that decides to send it; delivery (SMTP) is a
 * job that reads the outbox, which arrives with the admin configuration work.
 */
export type OutgoingMail = {
  tenantId?: string | undefined
  to: string
  template:
    | 'verify-email'
    | 'reset-password'
    | 'account-exists'
    | 'workflow-review'
    | 'workflow-due'
    | 'transmittal-sent'
    | 'invite'
    | 'project-invite'
    | 'join-request-received'
    | 'join-request-decided'
    | 'support-reply'
    | 'admin-password-reset'
  subject: string
  text: string
}

export async function enqueueMail(db: Database, mail: OutgoingMail): Promise<void> {
  await db.insert(mailOutbox).values({
    tenantId: mail.tenantId ?? null,
    toAddress: mail.to,
    template: mail.template,
    subject: mail.subject,
    textBody: mail.text,
  })
}
