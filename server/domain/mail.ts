import type { Database } from '#server/db/client'
import { mailOutbox } from '#server/db/schema'

/**
 * Mail is written to the outbox in the same flow that decides to send it; delivery (SMTP) is a
 * job that reads the outbox (server/jobs/mail-delivery.ts).
 *
 * Issue 14 moves every mail to a template (server/mail/templates): callers name the template and
 * give its variables; the organisation's version of the template (or the default) is rendered
 * when the mail is queued. The `subject`/`text` form is the old one, being replaced.
 */
export type MailTemplateKey =
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
  | 'email-change'
  | 'item-assigned'
  | 'item-response'
  | 'item-close-requested'
  | 'digest'

/** A variable's value: text, a number, or (for a section such as the digest's items) a list of records. */
export type MailVariables = Record<string, string | number | boolean | null | Record<string, string | number | boolean | null>[]>

export type OutgoingMail = { tenantId?: string | undefined; to: string; template: MailTemplateKey } & ({ variables: MailVariables } | { subject: string; text: string })

export async function enqueueMail(db: Database, mail: OutgoingMail): Promise<void> {
  if (!('subject' in mail)) throw new Error(`enqueueMail: templated mail (${mail.template}) needs the template engine of issue 14`)
  await db.insert(mailOutbox).values({
    tenantId: mail.tenantId ?? null,
    toAddress: mail.to,
    template: mail.template,
    subject: mail.subject,
    textBody: mail.text,
  })
}
