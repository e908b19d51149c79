import { and, eq } from 'drizzle-orm'
import type { Database } from '#server/db/client'
import { emailTemplates } from '#server/db/schema-settings'
import type { TemplateTexts } from './types'

export type StoredTemplate = TemplateTexts & { version: number; updatedBy: string | null; updatedAt: Date }

/**
 * The organisation's own version of a template, or undefined (the default applies). Always
 * filtered by the tenant: the handle may be the owner's, which sees every organisation's rows; a
 * tenant transaction sees only its own; a handle with no tenant sees none (and gets the default).
 */
export async function storedTemplate(db: Database, tenantId: string, key: string): Promise<StoredTemplate | undefined> {
  const [row] = await db
    .select({
      subject: emailTemplates.subject,
      html: emailTemplates.htmlBody,
      text: emailTemplates.textBody,
      version: emailTemplates.version,
      updatedBy: emailTemplates.updatedBy,
      updatedAt: emailTemplates.updatedAt,
    })
    .from(emailTemplates)
    .where(and(eq(emailTemplates.tenantId, tenantId), eq(emailTemplates.key, key)))
    .limit(1)
  return row
}
