import { createHash } from 'node:crypto'
import { and, desc, eq, sql } from 'drizzle-orm'
import { users } from '#server/db/schema'
import { adminConfig, adminConfigVersions } from '#server/db/schema-settings'
import { recordAuditIn } from '#server/domain/audit'
import { recordChange } from '#server/domain/tenancy/change-log'
import { bumpListRevision } from '#server/domain/tenancy/edit-conflict'
import type { DomainContext } from '#server/domain/tenancy/context'
import { Problem, problems, type FieldErrors } from '#server/http/problem'
import type { ConfigCategory, ConfigCategoryValues, ConfigTestResult } from '~/lib/admin/config'
import { applyBacked, loadBacked, type InstanceFacts } from './backing'
import { appliesOf, categoryErrors, CATEGORIES, clearableFields, defaultsOf, secretFields } from './categories'
import { diffValues, type Change } from './diff'
import { openSecret, sealSecret } from './secrets'

/**
 * The organisation's configuration, by category (docs/admin/configuration.md): read with the
 * defaults under the saved values, saved with a version check, every save kept as a version,
 * audited with a before/after diff (secrets masked) and announced to realtime (AdminConfig).
 * Secrets are sealed (secrets.ts), kept apart from the values and never returned.
 */

export type SaveMeta = { ip: string; correlationId: string }

type Row = typeof adminConfig.$inferSelect

/** Writing a secret needs the sealing key; callers that never take secrets (settings) have none. */
type SaveOptions = { mode: 'replace' | 'merge'; expectedVersion?: number | undefined; sessionSecret?: string | undefined; instance?: InstanceFacts | undefined; meta: SaveMeta }

/** The change log's id of a category (the log takes UUIDs): the organisation and category, as a stable UUID. */
export function configEntityId(tenantId: string, category: ConfigCategory): string {
  const hex = createHash('sha256').update(`admin-config:${tenantId}:${category}`).digest('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`
}

async function rowOf(ctx: DomainContext, category: ConfigCategory): Promise<Row | undefined> {
  const [row] = await ctx.tx
    .select()
    .from(adminConfig)
    .where(and(eq(adminConfig.tenantId, ctx.actor.tenantId), eq(adminConfig.category, category)))
    .limit(1)
  return row
}

async function personOf(ctx: DomainContext, userId: string | null): Promise<{ id: string; displayName: string } | null> {
  if (!userId) return null
  const [user] = await ctx.tx.select({ id: users.id, displayName: users.displayName }).from(users).where(eq(users.id, userId)).limit(1)
  return user ?? null
}

/** The values as they are now: defaults, then the saved values, then the fields kept in other tables. */
async function currentValues(ctx: DomainContext, category: ConfigCategory, row: Row | undefined, instance: InstanceFacts) {
  const backed = await loadBacked(ctx.tx, ctx.actor.tenantId, category, instance)
  const secrets = new Set(secretFields(category))
  const saved = Object.fromEntries(Object.entries(row?.values ?? {}).filter(([name]) => !secrets.has(name)))
  return { values: { ...defaultsOf(category), ...saved, ...backed.values }, backed: backed.values, configured: (row?.version ?? 0) > 0 || backed.configured }
}

function secretFlags(category: ConfigCategory, sealed: Record<string, string>): Record<string, { set: boolean }> {
  return Object.fromEntries(secretFields(category).map((name) => [name, { set: typeof sealed[name] === 'string' && sealed[name] !== '' }]))
}

async function view(ctx: DomainContext, category: ConfigCategory, row: Row | undefined, instance: InstanceFacts, pendingRestart: string[] = []): Promise<ConfigCategoryValues> {
  const current = await currentValues(ctx, category, row, instance)
  const saved = (row?.version ?? 0) > 0
  return {
    category,
    version: row?.version ?? 0,
    configured: current.configured,
    values: current.values,
    secrets: secretFlags(category, row?.secrets ?? {}),
    updatedAtUtc: saved && row ? row.updatedAt.toISOString() : null,
    updatedBy: saved && row ? await personOf(ctx, row.updatedBy) : null,
    lastTest: (row?.lastTest as ConfigTestResult | null | undefined) ?? null,
    pendingRestart,
  }
}

/** The category as the screen shows it: values without secrets, and whether each secret is set. */
export async function readConfigCategory(ctx: DomainContext, category: ConfigCategory, instance: InstanceFacts = {}): Promise<ConfigCategoryValues> {
  return view(ctx, category, await rowOf(ctx, category), instance)
}

/**
 * Changes some fields of a category (Settings › Site uses it for the locale and time zone):
 * the merged values are validated with the category's schema; no version check. Secrets cannot
 * be written this way (there is no sealing key here).
 */
export async function patchConfigCategory(ctx: DomainContext, category: ConfigCategory, patch: Record<string, unknown>, meta: SaveMeta): Promise<ConfigCategoryValues> {
  return saveConfigCategory(ctx, category, patch, { mode: 'merge', meta })
}

/** PUT /api/admin/config/{category}: the whole category, checked against the version the admin edited. */
export async function putConfigCategory(
  ctx: DomainContext,
  category: ConfigCategory,
  values: Record<string, unknown>,
  options: { expectedVersion: number | undefined; sessionSecret: string; instance: InstanceFacts; meta: SaveMeta },
): Promise<ConfigCategoryValues> {
  return saveConfigCategory(ctx, category, values, { mode: 'replace', ...options })
}

/** One save at a time per category of an organisation, so versions are handed out in order. */
async function lockCategory(ctx: DomainContext, category: ConfigCategory): Promise<void> {
  await ctx.tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`admin-config:${ctx.actor.tenantId}:${category}`}, 0))`)
}

export function readOnlyProblem(category: ConfigCategory): Problem {
  return new Problem({
    status: 409,
    title: 'Set by the server',
    detail: `The ${CATEGORIES[category].title.toLowerCase()} settings come from the server’s environment and cannot be changed here.`,
    code: 'KR_CONFIG_READ_ONLY',
    remediation: 'Ask whoever runs the server to change the realtime set-up and restart it (operations guide, “Several instances”).',
  })
}

function conflict(current: ConfigCategoryValues, yourVersion: number): Problem {
  return new Problem({
    status: 409,
    title: 'Changed by someone else',
    detail: `Someone saved these settings (version ${current.version}) after you opened them (version ${yourVersion}). Nothing of yours was saved.`,
    code: 'KR_CONFIG_CONFLICT',
    remediation: 'Compare your changes with the current values below, then save again.',
    extensions: { currentVersion: current.version, yourVersion, current },
  })
}

async function saveConfigCategory(ctx: DomainContext, category: ConfigCategory, input: Record<string, unknown>, options: SaveOptions): Promise<ConfigCategoryValues> {
  if (CATEGORIES[category].readOnly) throw readOnlyProblem(category)
  const instance = options.instance ?? {}
  await lockCategory(ctx, category)
  const row = await rowOf(ctx, category)
  const version = row?.version ?? 0
  if (options.expectedVersion !== undefined && options.expectedVersion !== version) throw conflict(await view(ctx, category, row, instance), options.expectedVersion)

  const before = await currentValues(ctx, category, row, instance)
  const secrets = secretFields(category)
  const sealedBefore = row?.secrets ?? {}
  const { candidate, typedSecrets, clearedSecrets } = candidateOf(category, options.mode === 'merge' ? { ...before.values, ...input } : input, secrets)

  if (Object.keys(typedSecrets).length > 0 && !options.sessionSecret) throw new Error('a secret was given without the sealing key')
  const willBeSet = (name: string) => name in typedSecrets || (!clearedSecrets.includes(name) && typeof sealedBefore[name] === 'string')
  const parsed = validate(category, candidate, willBeSet)

  const sealed: Record<string, string> = {}
  for (const name of secrets) {
    const typed = typedSecrets[name]
    if (typed !== undefined && options.sessionSecret) sealed[name] = sealSecret(options.sessionSecret, { tenantId: ctx.actor.tenantId, category, field: name }, typed)
    else if (willBeSet(name) && sealedBefore[name]) sealed[name] = sealedBefore[name]
  }
  const values = Object.fromEntries(Object.entries(parsed).filter(([name]) => !secrets.includes(name)))
  const changes = diffValues(before.values, values, sealedBefore, sealed, secrets)
  if (changes.length === 0 && version > 0) return view(ctx, category, row, instance)

  await applyBacked(ctx, category, before.backed, values, options.meta)
  const saved = await storeVersion(ctx, category, version + 1, values, sealed, null)
  await moveSiteRevision(ctx, category, before.values, values)
  await recordAuditIn(ctx.tx, {
    tenantId: ctx.actor.tenantId,
    actorUserId: ctx.actor.userId,
    action: 'admin.config.changed',
    targetType: 'AdminConfig',
    targetId: category,
    ip: options.meta.ip,
    correlationId: options.meta.correlationId,
    data: { category, version: version + 1, changes },
    at: ctx.now,
  })
  await recordChange(ctx, 'AdminConfig', configEntityId(ctx.actor.tenantId, category), 'Updated')
  const pendingRestart = changes.filter((change) => appliesOf(category, change.field) === 'restart').map((change) => change.field)
  return view(ctx, category, saved, instance, pendingRestart)
}

/**
 * Splits what was sent into the values to validate and the secrets: a typed secret replaces the
 * saved one, a blank (or absent) one keeps it, null removes it. A blank optional field is no value.
 */
function candidateOf(category: ConfigCategory, input: Record<string, unknown>, secrets: string[]) {
  const clearable = new Set(clearableFields(category))
  // A Map, not an object: a field named "__proto__" stays a field (and an unknown one).
  const candidate = new Map<string, unknown>()
  const typedSecrets: Record<string, string> = {}
  const clearedSecrets: string[] = []
  for (const [name, value] of Object.entries(input)) {
    if (secrets.includes(name)) {
      if (value === null) clearedSecrets.push(name)
      else if (typeof value === 'string' && value !== '') {
        typedSecrets[name] = value
        candidate.set(name, value)
      } else if (value !== undefined && value !== '') candidate.set(name, value)
      continue
    }
    if (value === undefined || value === null || (value === '' && clearable.has(name))) continue
    candidate.set(name, value)
  }
  return { candidate: Object.fromEntries(candidate), typedSecrets, clearedSecrets }
}

function invalid(errors: FieldErrors): Problem {
  return new Problem(problems.badRequest('Some settings are not valid: see the message next to each.', errors))
}

function validate(category: ConfigCategory, candidate: Record<string, unknown>, secretSet: (name: string) => boolean): Record<string, unknown> {
  const result = CATEGORIES[category].schema.safeParse(candidate)
  const errors: FieldErrors = result.success ? {} : categoryErrors(result.error)
  // An enabled identity provider needs its client secret: typed now or saved before.
  if (category === 'identity-provider' && candidate.enabled === true && !secretSet('clientSecret')) {
    errors.clientSecret = [...(errors.clientSecret ?? []), 'Enter the client secret before turning sign-in with it on.']
  }
  if (!result.success || Object.keys(errors).length > 0) throw invalid(errors)
  return result.data
}

/** Writes the category's current row and its version row. */
/**
 * Settings › Site shows the general category's locale and time zone: a change of either here (a
 * save or a rollback) moves the site's revision, so a Site form opened before it is refused (409)
 * instead of setting them back (issue 36 §4).
 */
async function moveSiteRevision(ctx: DomainContext, category: ConfigCategory, before: Record<string, unknown>, after: Record<string, unknown>): Promise<void> {
  if (category !== 'general') return
  if (before.defaultLocale === after.defaultLocale && before.defaultTimeZone === after.defaultTimeZone) return
  await bumpListRevision(ctx, 'site', ctx.actor.tenantId)
}

async function storeVersion(
  ctx: DomainContext,
  category: ConfigCategory,
  version: number,
  values: Record<string, unknown>,
  secrets: Record<string, string>,
  restoredFrom: number | null,
): Promise<Row> {
  const current = { values, secrets, version, updatedBy: ctx.actor.userId, updatedAt: ctx.now }
  const [saved] = await ctx.tx
    .insert(adminConfig)
    .values({ tenantId: ctx.actor.tenantId, category, ...current })
    .onConflictDoUpdate({ target: [adminConfig.tenantId, adminConfig.category], set: current })
    .returning()
  await ctx.tx
    .insert(adminConfigVersions)
    .values({ tenantId: ctx.actor.tenantId, category, version, values, secrets, changedBy: ctx.actor.userId, changedAt: ctx.now, restoredFrom })
  if (!saved) throw new Error('configuration not saved')
  return saved
}

/** POST /api/admin/config/{category}/rollback: an earlier version becomes the newest (a new version; nothing is lost). */
export async function rollbackConfigCategory(
  ctx: DomainContext,
  category: ConfigCategory,
  target: number,
  options: { instance: InstanceFacts; meta: SaveMeta },
): Promise<ConfigCategoryValues> {
  if (CATEGORIES[category].readOnly) throw readOnlyProblem(category)
  await lockCategory(ctx, category)
  const [old] = await ctx.tx
    .select()
    .from(adminConfigVersions)
    .where(and(eq(adminConfigVersions.tenantId, ctx.actor.tenantId), eq(adminConfigVersions.category, category), eq(adminConfigVersions.version, target)))
    .limit(1)
  if (!old) throw new Problem(problems.notFound(`There is no version ${target} of these settings.`))
  const row = await rowOf(ctx, category)
  const version = row?.version ?? 0
  const before = await currentValues(ctx, category, row, options.instance)
  // Restored values over today's defaults: a field added since that version gets its default.
  const values = { ...defaultsOf(category), ...old.values }
  const changes = diffValues(before.values, values, row?.secrets ?? {}, old.secrets, secretFields(category))
  await applyBacked(ctx, category, before.backed, values, options.meta)
  const saved = await storeVersion(ctx, category, version + 1, values, old.secrets, target)
  await moveSiteRevision(ctx, category, before.values, values)
  await recordAuditIn(ctx.tx, {
    tenantId: ctx.actor.tenantId,
    actorUserId: ctx.actor.userId,
    action: 'admin.config.rolled-back',
    targetType: 'AdminConfig',
    targetId: category,
    ip: options.meta.ip,
    correlationId: options.meta.correlationId,
    data: { category, version: version + 1, restoredFrom: target, changes },
    at: ctx.now,
  })
  await recordChange(ctx, 'AdminConfig', configEntityId(ctx.actor.tenantId, category), 'Updated')
  const pendingRestart = changes.filter((change) => appliesOf(category, change.field) === 'restart').map((change) => change.field)
  return view(ctx, category, saved, options.instance, pendingRestart)
}

/** GET /api/admin/config/{category}/versions: newest first, each with what it changed. */
export async function listConfigVersions(ctx: DomainContext, category: ConfigCategory) {
  const rows = await ctx.tx
    .select({
      version: adminConfigVersions.version,
      values: adminConfigVersions.values,
      secrets: adminConfigVersions.secrets,
      changedAt: adminConfigVersions.changedAt,
      changedBy: adminConfigVersions.changedBy,
      displayName: users.displayName,
      restoredFrom: adminConfigVersions.restoredFrom,
    })
    .from(adminConfigVersions)
    .leftJoin(users, eq(users.id, adminConfigVersions.changedBy))
    .where(and(eq(adminConfigVersions.tenantId, ctx.actor.tenantId), eq(adminConfigVersions.category, category)))
    .orderBy(desc(adminConfigVersions.version))
  const secrets = secretFields(category)
  return rows.map((row, index) => {
    const previous = rows[index + 1]
    const changes: Change[] = diffValues(previous ? previous.values : defaultsOf(category), row.values, previous?.secrets ?? {}, row.secrets, secrets)
    return {
      version: row.version,
      changedAtUtc: row.changedAt.toISOString(),
      changedBy: row.changedBy && row.displayName !== null ? { id: row.changedBy, displayName: row.displayName } : null,
      restoredFrom: row.restoredFrom,
      changes,
    }
  })
}

/** The saved secrets of a category, opened (for the tests, which fill in what the admin did not type). */
export async function openSavedSecrets(ctx: DomainContext, category: ConfigCategory, sessionSecret: string): Promise<Record<string, string>> {
  const row = await rowOf(ctx, category)
  const opened: Record<string, string> = {}
  for (const [field, sealed] of Object.entries(row?.secrets ?? {})) {
    const plain = openSecret(sessionSecret, { tenantId: ctx.actor.tenantId, category, field }, sealed)
    if (plain !== undefined) opened[field] = plain
  }
  return opened
}

/** Keeps a test's result as the category's last test (a never-saved category gets a row at version 0). */
export async function storeLastTest(ctx: DomainContext, category: ConfigCategory, result: ConfigTestResult): Promise<void> {
  await ctx.tx
    .insert(adminConfig)
    .values({ tenantId: ctx.actor.tenantId, category, version: 0, lastTest: result, updatedAt: ctx.now })
    .onConflictDoUpdate({ target: [adminConfig.tenantId, adminConfig.category], set: { lastTest: result } })
}

/** Every row of the organisation, for the status page. */
export async function allRows(ctx: DomainContext): Promise<Row[]> {
  return ctx.tx.select().from(adminConfig).where(eq(adminConfig.tenantId, ctx.actor.tenantId))
}

export { view as categoryView }
