import { createHash } from 'node:crypto'
import { and, eq, ne } from 'drizzle-orm'
import { tenants } from '#server/db/schema'
import { recordAuditIn } from '#server/domain/audit'
import { patchConfigCategory, readConfigCategory } from '#server/domain/config/store'
import type { ServedBlob } from '#server/domain/uploads/served'
import type { DomainContext } from '#server/domain/tenancy/context'
import { recordChange } from '#server/domain/tenancy/change-log'
import { bumpListRevision, listRevision, refuseStaleWrite } from '#server/domain/tenancy/edit-conflict'
import { Problem, problems } from '#server/http/problem'
import type { SiteSettings } from '~/lib/settings/settings'
import type { Meta } from './user'
import { normaliseWorkingDays } from './working-days'

/**
 * Site settings (issue 14, docs/settings.md "Site"): the organisation's name, slug, logo, locale,
 * time zone and working days. Every member reads them; administrators change them. Locale and
 * time zone are the general configuration's defaultLocale and defaultTimeZone (one source: a change
 * here is a change there, with its version and audit).
 */

export type SitePatch = {
  name?: string | undefined
  slug?: string | undefined
  locale?: string | undefined
  timeZone?: string | undefined
  workingDays?: number[] | undefined
  expectedRevision?: number | undefined
}

export const onlyAdminsChangeSite = () => new Problem(problems.forbidden('Only administrators of this organisation can change its site settings.'))

function logoUrl(key: string): string {
  return `/api/settings/site/logo?v=${key.slice(key.lastIndexOf('.') + 1, key.lastIndexOf('.') + 17)}`
}

async function general(ctx: DomainContext): Promise<{ locale: string; timeZone: string }> {
  const { values } = await readConfigCategory(ctx, 'general')
  return { locale: String(values.defaultLocale ?? 'en-GB'), timeZone: String(values.defaultTimeZone ?? 'UTC') }
}

/** GET /api/settings/site. */
export async function getSite(ctx: DomainContext): Promise<SiteSettings> {
  const [row] = await ctx.tx
    .select({ name: tenants.name, slug: tenants.slug, workingDays: tenants.workingDays, logoBlobKey: tenants.logoBlobKey, logoContentType: tenants.logoContentType })
    .from(tenants)
    .where(eq(tenants.id, ctx.actor.tenantId))
  if (!row) throw new Error('a session without its organisation')
  return {
    name: row.name,
    slug: row.slug,
    logo: row.logoBlobKey && row.logoContentType ? { url: logoUrl(row.logoBlobKey), contentType: row.logoContentType } : null,
    ...(await general(ctx)),
    workingDays: normaliseWorkingDays(row.workingDays),
    canEdit: ctx.actor.roleKey === 'admin',
    revision: (await listRevision(ctx, 'site', ctx.actor.tenantId)).revision,
  }
}

/** The general configuration's field errors, named as this form names its fields. */
function renamedConfigProblem(error: unknown): unknown {
  if (!(error instanceof Problem) || !error.init.errors) return error
  const names: Record<string, string> = { defaultLocale: 'locale', defaultTimeZone: 'timeZone' }
  const errors = Object.fromEntries(Object.entries(error.init.errors).map(([field, messages]) => [names[field] ?? field, messages]))
  return new Problem({ ...error.init, errors })
}

/** PATCH /api/settings/site: administrators; only the fields sent change. A slug another organisation uses is a 409 on slug. */
export async function patchSite(ctx: DomainContext, patch: SitePatch, meta: Meta): Promise<SiteSettings> {
  if (ctx.actor.roleKey !== 'admin') throw onlyAdminsChangeSite()
  // Saved by another administrator since the form was opened: 409 KR_EDIT_CONFLICT, nothing saved (issue 36 §4).
  const saved = await listRevision(ctx, 'site', ctx.actor.tenantId, { lock: true })
  await refuseStaleWrite(ctx, { ...saved, what: 'site settings' }, patch.expectedRevision, () => getSite(ctx))
  const before = await getSite(ctx)
  const changes: Record<string, { from: unknown; to: unknown }> = {}
  const row: Partial<typeof tenants.$inferInsert> = {}
  if (patch.name !== undefined && patch.name !== before.name) {
    row.name = patch.name
    changes.name = { from: before.name, to: patch.name }
  }
  if (patch.slug !== undefined && patch.slug !== before.slug) {
    const [taken] = await ctx.tx
      .select({ id: tenants.id })
      .from(tenants)
      .where(and(eq(tenants.slug, patch.slug), ne(tenants.id, ctx.actor.tenantId)))
      .limit(1)
    if (taken) throw slugTaken()
    row.slug = patch.slug
    changes.slug = { from: before.slug, to: patch.slug }
  }
  if (patch.workingDays !== undefined) {
    const days = normaliseWorkingDays(patch.workingDays)
    if (days.join() !== before.workingDays.join()) {
      row.workingDays = days
      changes.workingDays = { from: before.workingDays, to: days }
    }
  }
  if (Object.keys(row).length > 0) {
    try {
      await ctx.tx
        .update(tenants)
        .set({ ...row, updatedAt: ctx.now })
        .where(eq(tenants.id, ctx.actor.tenantId))
    } catch (error) {
      // Taken by another organisation at this very moment (the unique index decides).
      if (isUniqueViolation(error)) throw slugTaken()
      throw error
    }
  }
  const configPatch: Record<string, string> = {}
  if (patch.locale !== undefined && patch.locale !== before.locale) configPatch.defaultLocale = patch.locale
  if (patch.timeZone !== undefined && patch.timeZone !== before.timeZone) configPatch.defaultTimeZone = patch.timeZone
  if (Object.keys(configPatch).length > 0) {
    try {
      await patchConfigCategory(ctx, 'general', configPatch, meta)
    } catch (error) {
      throw renamedConfigProblem(error)
    }
    if (configPatch.defaultLocale) changes.locale = { from: before.locale, to: configPatch.defaultLocale }
    if (configPatch.defaultTimeZone) changes.timeZone = { from: before.timeZone, to: configPatch.defaultTimeZone }
  }
  if (Object.keys(changes).length === 0) return before
  await auditSite(ctx, meta, changes)
  // A locale or time zone change already moved the revision, in the general configuration's save.
  if (Object.keys(configPatch).length === 0) await bumpListRevision(ctx, 'site', ctx.actor.tenantId)
  return getSite(ctx)
}

export function slugTaken(): Problem {
  return new Problem({
    status: 409,
    title: 'Conflict',
    detail: 'Another organisation already uses this short name.',
    code: 'KR_SLUG_TAKEN',
    remediation: 'Choose another short name.',
    errors: { slug: ['Another organisation already uses this short name. Choose another.'] },
  })
}

/** A unique index refused the write (PostgreSQL 23505), however the driver wraps it. */
export function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === '23505') return true
  }
  return false
}

async function auditSite(ctx: DomainContext, meta: Meta, data: Record<string, unknown>): Promise<void> {
  await recordAuditIn(ctx.tx, {
    tenantId: ctx.actor.tenantId,
    actorUserId: ctx.actor.userId,
    action: 'settings.site.changed',
    targetType: 'Organisation',
    targetId: ctx.actor.tenantId,
    ip: meta.ip,
    correlationId: meta.correlationId,
    data,
    at: ctx.now,
  })
  await recordChange(ctx, 'Organisation', ctx.actor.tenantId, 'Updated')
}

/** Where a logo's bytes live: named by their hash, so its URL changes with the image. */
export function logoKey(tenantId: string, bytes: Uint8Array): string {
  return `${tenantId}/site/logo.${createHash('sha256').update(bytes).digest('hex')}`
}

/** POST /api/settings/site/logo, after the bytes are stored under `key`: the organisation's logo is the new one. Returns the old key, to delete. */
export async function setLogo(ctx: DomainContext, key: string, contentType: string, sizeBytes: number, meta: Meta): Promise<string | null> {
  if (ctx.actor.roleKey !== 'admin') throw onlyAdminsChangeSite()
  const [before] = await ctx.tx.select({ key: tenants.logoBlobKey }).from(tenants).where(eq(tenants.id, ctx.actor.tenantId)).for('update')
  await ctx.tx.update(tenants).set({ logoBlobKey: key, logoContentType: contentType, updatedAt: ctx.now }).where(eq(tenants.id, ctx.actor.tenantId))
  await auditSite(ctx, meta, { logo: { contentType, sizeBytes } })
  return before?.key && before.key !== key ? before.key : null
}

/** DELETE /api/settings/site/logo: none any more (removing none changes nothing). Returns the old key, to delete. */
export async function removeLogo(ctx: DomainContext, meta: Meta): Promise<string | null> {
  if (ctx.actor.roleKey !== 'admin') throw onlyAdminsChangeSite()
  const [before] = await ctx.tx.select({ key: tenants.logoBlobKey }).from(tenants).where(eq(tenants.id, ctx.actor.tenantId)).for('update')
  if (!before?.key) return null
  await ctx.tx.update(tenants).set({ logoBlobKey: null, logoContentType: null, updatedAt: ctx.now }).where(eq(tenants.id, ctx.actor.tenantId))
  await auditSite(ctx, meta, { logo: null })
  return before.key
}

/** GET /api/settings/site/logo: the blob to serve, for every member. */
export async function logoBlob(ctx: DomainContext): Promise<ServedBlob> {
  const [row] = await ctx.tx.select({ key: tenants.logoBlobKey, contentType: tenants.logoContentType }).from(tenants).where(eq(tenants.id, ctx.actor.tenantId))
  if (!row?.key || !row.contentType) throw new Problem(problems.notFound('The organisation has no logo.'))
  const sha256 = row.key.slice(row.key.lastIndexOf('.') + 1)
  return { key: row.key, contentType: row.contentType, sha256, fileName: `logo.${row.contentType.split('/')[1] ?? 'img'}` }
}
