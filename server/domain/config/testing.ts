import { eq } from 'drizzle-orm'
import { users } from '#server/db/schema'
import { recordAuditIn } from '#server/domain/audit'
import { recordChange } from '#server/domain/tenancy/change-log'
import type { DomainContext } from '#server/domain/tenancy/context'
import { Problem, problems, type FieldErrors } from '#server/http/problem'
import { testSmtpDelivery } from '#server/mail/smtp'
import type { BlobStore } from '#server/storage/blob-store'
import { CONFIG_CATEGORIES, type ConfigCategory, type ConfigStatusResponse, type ConfigTestKind, type ConfigTestResult } from '~/lib/admin/config'
import type { InstanceFacts } from './backing'
import { categoryErrors, CATEGORIES, clearableFields, secretFields, TEST_CATEGORY } from './categories'
import { checkOidc, checkRedis, checkStorage, type CheckResult } from './checks'
import type { MailConfig } from './effective'
import { allRows, categoryView, configEntityId, openSavedSecrets, readConfigCategory, storeLastTest, type SaveMeta } from './store'

/**
 * The configuration's status page and its tests (docs/admin/configuration.md "Tests"). A test
 * runs in three steps so no transaction stays open while a remote server is slow: prepare (the
 * saved values and secrets, overridden by what the admin typed, validated), run, record (kept
 * as the category's last test, audited admin.config.tested).
 */

export async function configStatus(ctx: DomainContext, instance: InstanceFacts): Promise<ConfigStatusResponse> {
  const rows = await allRows(ctx)
  const categories = []
  for (const category of CONFIG_CATEGORIES) {
    const view = await categoryView(
      ctx,
      category,
      rows.find((row) => row.category === category),
      instance,
    )
    categories.push({
      category,
      title: CATEGORIES[category].title,
      configured: view.configured,
      version: view.version,
      updatedAtUtc: view.updatedAtUtc,
      updatedBy: view.updatedBy,
      lastTest: view.lastTest,
    })
  }
  return { categories }
}

export type PreparedTest = { kind: ConfigTestKind; category: ConfigCategory; tenantId: string; values: Record<string, unknown>; toEmail: string }

function invalid(errors: FieldErrors): Problem {
  return new Problem(problems.badRequest('Some settings are not valid: see the message next to each.', errors))
}

/** The values to test: saved values and secrets, with what the admin typed on top (a blank secret is the saved one). */
export async function prepareConfigTest(
  ctx: DomainContext,
  kind: ConfigTestKind,
  input: { values?: Record<string, unknown> | undefined; toEmail?: string | undefined },
  sessionSecret: string,
  instance: InstanceFacts,
): Promise<PreparedTest> {
  const category = TEST_CATEGORY[kind]
  const saved = await readConfigCategory(ctx, category, instance)
  // A Map, not an object: a field named "__proto__" stays a field (and an unknown one).
  const candidate = new Map<string, unknown>(Object.entries({ ...saved.values, ...(await openSavedSecrets(ctx, category, sessionSecret)) }))
  const secrets = secretFields(category)
  const clearable = new Set(clearableFields(category))
  if (!CATEGORIES[category].readOnly) {
    for (const [name, value] of Object.entries(input.values ?? {})) {
      if (secrets.includes(name)) {
        if (value === null) candidate.delete(name)
        else if (value !== '' && value !== undefined) candidate.set(name, value)
      } else if (value === undefined || value === null || (value === '' && clearable.has(name))) candidate.delete(name)
      else candidate.set(name, value)
    }
  }
  const parsed = CATEGORIES[category].schema.safeParse(Object.fromEntries(candidate))
  if (!parsed.success) throw invalid(categoryErrors(parsed.error))
  const values = parsed.data
  if (kind === 'oidc' && typeof values.issuer !== 'string') throw invalid({ issuer: ['Enter the issuer to test.'] })

  let toEmail = input.toEmail ?? ''
  if (kind === 'smtp' && toEmail === '') {
    const [me] = await ctx.tx.select({ email: users.email }).from(users).where(eq(users.id, ctx.actor.userId)).limit(1)
    toEmail = me?.email ?? ''
    if (!toEmail) throw invalid({ toEmail: ['Enter the address to send the test mail to.'] })
  }
  return { kind, category, tenantId: ctx.actor.tenantId, values, toEmail }
}

const optionalText = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined)

export async function executeConfigTest(prepared: PreparedTest, deps: { now: () => Date; store: BlobStore; redisUrl: string | undefined; siteName: string }): Promise<CheckResult> {
  const { values } = prepared
  switch (prepared.kind) {
    case 'smtp': {
      const mail: MailConfig = {
        host: String(values.host),
        port: Number(values.port),
        security: values.security as MailConfig['security'],
        username: optionalText(values.username),
        password: optionalText(values.password),
        fromAddress: String(values.fromAddress),
        fromName: optionalText(values.fromName) ?? deps.siteName,
      }
      try {
        return await testSmtpDelivery(mail, prepared.toEmail, deps.now)
      } catch (error) {
        return {
          kind: 'smtp',
          ok: false,
          message: 'The mail test could not run on this server. Try again; if it keeps failing, tell whoever runs the server.',
          detail: error instanceof Error ? error.message : String(error),
          testedAtUtc: deps.now().toISOString(),
          durationMs: 0,
        }
      }
    }
    case 'oidc':
      return checkOidc(String(values.issuer), deps.now)
    case 'redis':
      return checkRedis(deps.redisUrl, deps.now)
    case 'storage':
      return checkStorage(deps.store, prepared.tenantId, deps.now)
  }
}

/** Keeps the result as the category's last test and audits it (what was tested and the verdict; never a value). */
export async function recordConfigTest(ctx: DomainContext, prepared: PreparedTest, result: CheckResult, meta: SaveMeta): Promise<ConfigTestResult> {
  const [me] = await ctx.tx.select({ displayName: users.displayName }).from(users).where(eq(users.id, ctx.actor.userId)).limit(1)
  const recorded: ConfigTestResult = { ...result, testedBy: me?.displayName }
  if (recorded.detail === undefined) delete recorded.detail
  if (recorded.testedBy === undefined) delete recorded.testedBy
  await storeLastTest(ctx, prepared.category, recorded)
  await recordChange(ctx, 'AdminConfig', configEntityId(ctx.actor.tenantId, prepared.category), 'Updated')
  await recordAuditIn(ctx.tx, {
    tenantId: ctx.actor.tenantId,
    actorUserId: ctx.actor.userId,
    action: 'admin.config.tested',
    targetType: 'AdminConfig',
    targetId: prepared.category,
    ip: meta.ip,
    correlationId: meta.correlationId,
    data: { category: prepared.category, kind: prepared.kind, ok: result.ok, message: result.message },
    at: ctx.now,
  })
  return recorded
}
