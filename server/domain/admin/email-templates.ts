import { createHash } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { users } from '#server/db/schema'
import { emailTemplates } from '#server/db/schema-settings'
import { recordAuditIn, type AuditAction } from '#server/domain/audit'
import { mailVariables, queueRendered, templateTexts } from '#server/domain/mail'
import { type MailTemplateKey, type MailVariables } from '#server/mail/templates/types'
import { recordChange } from '#server/domain/tenancy/change-log'
import type { DomainContext } from '#server/domain/tenancy/context'
import { Problem, problems } from '#server/http/problem'
import { COMMON_VARIABLES, sampleVariables, templateDefinition, templateDefinitions } from '#server/mail/templates/registry'
import { renderTemplate, validateTemplate, type RenderedMail } from '#server/mail/templates/render'
import type { TemplateDefinition, TemplateTexts } from '#server/mail/templates/types'
import type { EmailTemplateDetail, EmailTemplateList, EmailTemplatePreview, EmailTemplateSummary, EmailTemplateTestResult } from '~/lib/admin/email-templates'
import type { EmailTemplatePreviewInput, EmailTemplateSaveInput, EmailTemplateTestInput } from '~/lib/schemas/admin-email-templates'

/**
 * Administration › Email templates (docs/admin/email-templates.md): every mail the product sends
 * has a default (server/mail/templates); an organisation may save its own version of each, which
 * its mail then uses. All of it runs in the organisation's transaction (row-level security).
 */

export type TemplateMeta = { ip: string; correlationId: string }

const TEST_PREFIX = '[Test] '
/** Texts longer than this are cut in the audit trail's before/after. */
const AUDIT_TEXT_MAX = 4000

function unknownTemplate(): Problem {
  return new Problem({ ...problems.notFound('There is no such e-mail template.'), remediation: 'Pick a template from Administration › Email templates.' })
}

function definitionOf(key: string): TemplateDefinition {
  const definition = templateDefinition(key)
  if (!definition) throw unknownTemplate()
  return definition
}

/** The change log's id of a template: its key within the organisation, as a stable UUID. */
export function templateEntityId(tenantId: string, key: string): string {
  const hex = createHash('sha256').update(`email-template:${tenantId}:${key}`).digest('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`
}

type Row = { key: string; subject: string; html: string; text: string; version: number; updatedAt: Date; updatedById: string | null; updatedByName: string | null }

async function storedRows(ctx: DomainContext, key?: string, lock = false): Promise<Row[]> {
  const query = ctx.tx
    .select({
      key: emailTemplates.key,
      subject: emailTemplates.subject,
      html: emailTemplates.htmlBody,
      text: emailTemplates.textBody,
      version: emailTemplates.version,
      updatedAt: emailTemplates.updatedAt,
      updatedById: emailTemplates.updatedBy,
      updatedByName: users.displayName,
    })
    .from(emailTemplates)
    .leftJoin(users, eq(users.id, emailTemplates.updatedBy))
    .where(key === undefined ? eq(emailTemplates.tenantId, ctx.actor.tenantId) : and(eq(emailTemplates.tenantId, ctx.actor.tenantId), eq(emailTemplates.key, key)))
  return lock ? query.for('update', { of: emailTemplates }) : query
}

function summaryOf(definition: TemplateDefinition, row: Row | undefined): EmailTemplateSummary {
  return {
    key: definition.key,
    title: definition.title,
    description: definition.description,
    customised: row !== undefined,
    version: row?.version ?? 0,
    updatedAtUtc: row ? row.updatedAt.toISOString() : null,
    updatedBy: row?.updatedById ? { id: row.updatedById, displayName: row.updatedByName ?? 'Unknown' } : null,
  }
}

function detailOf(definition: TemplateDefinition, row: Row | undefined): EmailTemplateDetail {
  const defaults = { subject: definition.subject, html: definition.html, text: definition.text }
  const current = row ?? defaults
  return {
    ...summaryOf(definition, row),
    subject: current.subject,
    html: current.html,
    text: current.text,
    defaults,
    variables: [
      ...COMMON_VARIABLES.map((v) => ({ name: v.name, description: v.description, sample: String(v.sample), common: true })),
      ...definition.variables.map((v) => ({
        name: v.name,
        description: v.description,
        sample: v.fields ? '' : String(v.sample),
        ...(v.fields ? { fields: v.fields } : {}),
        common: false,
      })),
    ],
  }
}

/** GET /api/admin/email-templates: every template, customised or not. */
export async function listEmailTemplates(ctx: DomainContext): Promise<EmailTemplateList> {
  const rows = new Map((await storedRows(ctx)).map((row) => [row.key, row]))
  return { items: templateDefinitions().map((definition) => summaryOf(definition, rows.get(definition.key))) }
}

/** GET /api/admin/email-templates/{key}. */
export async function getEmailTemplate(ctx: DomainContext, key: string): Promise<EmailTemplateDetail> {
  const definition = definitionOf(key)
  const [row] = await storedRows(ctx, key)
  return detailOf(definition, row)
}

/** A textarea posts CR LF; the mail's lines are LF (the transport writes CR LF on the wire). */
function normalised(texts: TemplateTexts): TemplateTexts {
  const lf = (value: string) => value.replace(/\r\n?/g, '\n')
  return { subject: lf(texts.subject), html: lf(texts.html), text: lf(texts.text) }
}

function checked(definition: TemplateDefinition, texts: TemplateTexts): TemplateTexts {
  const errors = validateTemplate(definition, texts)
  if (Object.keys(errors).length > 0) {
    const fields = Object.keys(errors).map((f) => (f === 'html' ? 'HTML body' : f === 'text' ? 'text body' : f))
    throw new Problem({
      ...problems.badRequest(`The template has problems in the ${fields.join(' and the ')}.`, errors as Record<string, string[]>),
      code: 'KR_TEMPLATE_INVALID',
      remediation: 'Use only the variables listed for this template, and close every section you open.',
    })
  }
  return texts
}

function versionConflict(current: EmailTemplateDetail, yours: number): Problem {
  return new Problem({
    status: 409,
    title: 'Changed by someone else',
    detail: `This template was saved by someone else meanwhile: you edited version ${yours}, the current one is version ${current.version}. Your text was not saved.`,
    code: 'KR_VERSION_CONFLICT',
    remediation: 'Copy what you typed, reload the template, and apply your change to the current version.',
    extensions: { currentVersion: current.version, yourVersion: yours, current },
  })
}

function auditText(value: string): string {
  return value.length > AUDIT_TEXT_MAX ? `${value.slice(0, AUDIT_TEXT_MAX)}…` : value
}

async function audit(ctx: DomainContext, meta: TemplateMeta, action: AuditAction, key: string, data: Record<string, unknown>): Promise<void> {
  await recordAuditIn(ctx.tx, {
    tenantId: ctx.actor.tenantId,
    actorUserId: ctx.actor.userId,
    action,
    targetType: 'EmailTemplate',
    targetId: key,
    ip: meta.ip,
    correlationId: meta.correlationId,
    data: { key, ...data },
    at: ctx.now,
  })
}

/** PUT /api/admin/email-templates/{key}: checked, version-checked, audited with a before/after diff. */
export async function saveEmailTemplate(ctx: DomainContext, key: string, input: EmailTemplateSaveInput, meta: TemplateMeta): Promise<EmailTemplateDetail> {
  const definition = definitionOf(key)
  const texts = checked(definition, normalised(input))
  const [row] = await storedRows(ctx, key, true)
  const before = detailOf(definition, row)
  if (before.version !== input.version) throw versionConflict(before, input.version)
  const version = before.version + 1
  await ctx.tx
    .insert(emailTemplates)
    .values({ tenantId: ctx.actor.tenantId, key, subject: texts.subject, htmlBody: texts.html, textBody: texts.text, version, updatedBy: ctx.actor.userId, updatedAt: ctx.now })
    .onConflictDoUpdate({
      target: [emailTemplates.tenantId, emailTemplates.key],
      set: { subject: texts.subject, htmlBody: texts.html, textBody: texts.text, version, updatedBy: ctx.actor.userId, updatedAt: ctx.now },
    })
  const changes = (['subject', 'html', 'text'] as const)
    .filter((field) => before[field] !== texts[field])
    .map((field) => ({ field, before: auditText(before[field]), after: auditText(texts[field]) }))
  await audit(ctx, meta, 'admin.email-template.changed', key, { version, fromDefault: !before.customised, changes })
  await recordChange(ctx, 'EmailTemplate', templateEntityId(ctx.actor.tenantId, key), 'Updated')
  return getEmailTemplate(ctx, key)
}

/** DELETE /api/admin/email-templates/{key}: back to the default (nothing to do when it is the default already). */
export async function resetEmailTemplate(ctx: DomainContext, key: string, meta: TemplateMeta): Promise<EmailTemplateDetail> {
  const definition = definitionOf(key)
  const [row] = await storedRows(ctx, key, true)
  if (!row) return detailOf(definition, undefined)
  await ctx.tx.delete(emailTemplates).where(and(eq(emailTemplates.tenantId, ctx.actor.tenantId), eq(emailTemplates.key, key)))
  await audit(ctx, meta, 'admin.email-template.reset', key, { version: row.version, subject: auditText(row.subject) })
  await recordChange(ctx, 'EmailTemplate', templateEntityId(ctx.actor.tenantId, key), 'Updated')
  return detailOf(definition, undefined)
}

/** The texts to try: what was typed over what applies now; checked. */
async function textsToTry(ctx: DomainContext, definition: TemplateDefinition, input: EmailTemplatePreviewInput): Promise<TemplateTexts> {
  const current = await templateTexts(ctx.tx, ctx.actor.tenantId, definition.key)
  return checked(definition, normalised({ subject: input.subject ?? current.subject, html: input.html ?? current.html, text: input.text ?? current.text }))
}

/** Renders with the sample data and this organisation's own site name, name and address. */
async function renderSample(ctx: DomainContext, definition: TemplateDefinition, texts: TemplateTexts): Promise<RenderedMail> {
  const samples = sampleVariables(definition)
  const own = await mailVariables(ctx.tx, ctx.actor.tenantId, {})
  const variables: MailVariables = { ...samples, siteName: own.siteName ?? samples.siteName ?? '', organisationName: own.organisationName || (samples.organisationName ?? '') }
  if (own.publicUrl) variables.publicUrl = own.publicUrl
  return renderTemplate(texts, variables)
}

/** POST /api/admin/email-templates/{key}/preview. */
export async function previewEmailTemplate(ctx: DomainContext, key: string, input: EmailTemplatePreviewInput): Promise<EmailTemplatePreview> {
  const definition = definitionOf(key)
  return renderSample(ctx, definition, await textsToTry(ctx, definition, input))
}

/** POST /api/admin/email-templates/{key}/test: a real mail with the sample data, through the outbox. */
export async function sendTestEmailTemplate(ctx: DomainContext, key: string, input: EmailTemplateTestInput, meta: TemplateMeta): Promise<EmailTemplateTestResult> {
  const definition = definitionOf(key)
  const texts = await textsToTry(ctx, definition, input)
  const rendered = await renderSample(ctx, definition, texts)
  const subject = `${TEST_PREFIX}${rendered.subject}`
  await queueRendered(ctx.tx, { tenantId: ctx.actor.tenantId, to: input.to, template: definition.key as MailTemplateKey }, { ...rendered, subject })
  await audit(ctx, meta, 'admin.email-template.tested', key, { to: input.to, unsaved: input.subject !== undefined || input.html !== undefined || input.text !== undefined })
  return { queued: true, to: input.to, subject }
}
