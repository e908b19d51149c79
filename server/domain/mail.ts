import { eq } from 'drizzle-orm'
import type { Database } from '#server/db/client'
import { mailOutbox, tenants } from '#server/db/schema'
import { effectiveGeneralConfig } from '#server/domain/config/effective'
import { DEFAULT_SITE_NAME, requireDefinition } from '#server/mail/templates/registry'
import { renderTemplate, validateTemplate, type RenderedMail } from '#server/mail/templates/render'
import { storedTemplate } from '#server/mail/templates/store'
import type { MailTemplateKey, MailVariables, TemplateTexts } from '#server/mail/templates/types'

/**
 * Mail is written to the outbox in the same flow that decides to send it; delivery (SMTP) is a
 * job that reads the outbox (server/jobs/mail-delivery.ts).
 *
 * Every mail has a template (server/mail/templates, docs/admin/email-templates.md): callers name
 * it and give its variables; the organisation's version of the template (or the default) is
 * rendered when the mail is queued, so the outbox holds exactly what is sent: subject, plain text
 * and HTML.
 */

/**
 * One mail to queue. `tenantId` names the organisation whose template applies (none: the
 * default, e.g. mail about an account before it belongs anywhere). The handle must be able to
 * read that organisation's templates: the owner's, or a transaction of that tenant.
 */
export type OutgoingMail = { tenantId?: string | undefined; to: string; template: MailTemplateKey; variables: MailVariables }

export async function enqueueMail(db: Database, mail: OutgoingMail): Promise<void> {
  const texts = await templateTexts(db, mail.tenantId, mail.template)
  const variables = await mailVariables(db, mail.tenantId, mail.variables)
  await queueRendered(db, { tenantId: mail.tenantId, to: mail.to, template: mail.template }, await renderTemplate(texts, variables))
}

/**
 * The texts that apply: the organisation's, else the default. A stored template that no longer
 * passes the checks (a variable the product has since dropped) gives way to the default rather
 * than send blanks.
 */
export async function templateTexts(db: Database, tenantId: string | undefined, key: MailTemplateKey): Promise<TemplateTexts> {
  const definition = requireDefinition(key)
  if (!tenantId) return definition
  const stored = await storedTemplate(db, tenantId, key)
  if (!stored || Object.keys(validateTemplate(definition, stored)).length > 0) return definition
  return stored
}

/** The caller's values over the ones every template has: the site's name, the organisation's name and the site's address. */
export async function mailVariables(db: Database, tenantId: string | undefined, given: MailVariables): Promise<MailVariables> {
  let siteName = DEFAULT_SITE_NAME
  let publicUrl = ''
  let organisationName = ''
  if (tenantId) {
    const general = await effectiveGeneralConfig(db, tenantId)
    siteName = general.values.siteName || DEFAULT_SITE_NAME
    publicUrl = general.values.publicUrl ?? ''
    const [tenant] = await db.select({ name: tenants.name }).from(tenants).where(eq(tenants.id, tenantId)).limit(1)
    organisationName = tenant?.name ?? ''
  }
  const defined = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined))
  return { siteName, organisationName, publicUrl, ...defined }
}

/** Writes a rendered mail to the outbox (the test mail of an unsaved template comes this way too). */
export async function queueRendered(db: Database, mail: { tenantId?: string | undefined; to: string; template: MailTemplateKey }, rendered: RenderedMail): Promise<void> {
  await db.insert(mailOutbox).values({
    tenantId: mail.tenantId ?? null,
    toAddress: mail.to,
    template: mail.template,
    subject: rendered.subject,
    textBody: rendered.text,
    htmlBody: rendered.html,
  })
}
