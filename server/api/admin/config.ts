import { Hono, type Context } from 'hono'
import { z } from 'zod'
import { categorySchema } from '#server/domain/config/categories'
import { effectiveGeneralConfig } from '#server/domain/config/effective'
import { listConfigVersions, putConfigCategory, readConfigCategory, rollbackConfigCategory } from '#server/domain/config/store'
import { configStatus, executeConfigTest, prepareConfigTest, recordConfigTest } from '#server/domain/config/testing'
import { operation, pathEnum } from '#server/http/contract'
import { ConfigCategoryValuesSchema, ConfigSchemaResponseSchema, ConfigStatusSchema, ConfigTestResultSchema, ConfigVersionsSchema } from '~/lib/schemas/admin-responses'
import type { BackendEnv } from '#server/http/env'
import { Problem, problems } from '#server/http/problem'
import { blobStoreFor } from '#server/storage/blob-stores'
import { CONFIG_CATEGORIES, CONFIG_TEST_KINDS, type ConfigCategory, type ConfigSchemaResponse, type ConfigTestKind, type ConfigVersionsResponse } from '~/lib/admin/config'
import { ConfigPutSchema, ConfigRollbackSchema, ConfigTestSchema } from '~/lib/schemas/admin-config'
import { runAdmin } from './run'

/** Administration › Configuration (issue 14, docs/admin/configuration.md). */

const TAG = 'Administration'

const CategoryParams = z.object({ category: pathEnum(CONFIG_CATEGORIES, 'Any other is 404.', z.string().max(60, 'Not a configuration category.')) })
const KindParams = z.object({ kind: pathEnum(CONFIG_TEST_KINDS, 'Any other is 404.', z.string().max(60, 'Not a test.')) })
const IfMatch = z.object({ 'if-match': z.string().max(100, 'If-Match is the ETag of the version edited, like "3".').optional() })

function categoryOf(name: string): ConfigCategory {
  const found = CONFIG_CATEGORIES.find((category) => category === name)
  if (!found) throw new Problem(problems.notFound(`There is no configuration category “${name}”. The categories are ${CONFIG_CATEGORIES.join(', ')}.`))
  return found
}

function kindOf(name: string): ConfigTestKind {
  const found = CONFIG_TEST_KINDS.find((kind) => kind === name)
  if (!found) throw new Problem(problems.notFound(`There is no configuration test “${name}”. The tests are ${CONFIG_TEST_KINDS.join(', ')}.`))
  return found
}

/** The version the admin edited: If-Match `"N"` (or W/"N"), else the body's `version`; `*` edits whatever is current. */
function expectedVersion(ifMatch: string | undefined, bodyVersion: number | undefined): number | undefined {
  if (ifMatch !== undefined) {
    const value = ifMatch.trim()
    if (value === '*') return undefined
    const match = /^(?:W\/)?"?(\d{1,9})"?$/.exec(value)
    if (!match?.[1])
      throw new Problem(problems.badRequest('If-Match is not a version of these settings.', { 'if-match': ['If-Match is the ETag of the version edited, like "3".'] }))
    return Number(match[1])
  }
  if (bodyVersion !== undefined) return bodyVersion
  throw new Problem({
    status: 428,
    title: 'Version required',
    detail: 'Say which version of the settings you edited (If-Match or version), so a change someone saved meanwhile is not overwritten.',
    code: 'KR_CONFIG_VERSION_REQUIRED',
    remediation: 'Read the category, edit it, and send its ETag as If-Match.',
  })
}

const meta = (c: Context<BackendEnv>) => ({ ip: c.get('ip'), correlationId: c.get('correlationId') })
const instanceOf = (c: Context<BackendEnv>) => ({ redisUrl: c.get('deps').config.redisUrl })
const etag = (version: number) => `"${version}"`

export const adminConfigRoutes = new Hono<BackendEnv>()
  .get(
    '/api/admin/config/schema',
    operation({
      summary: 'The configuration categories and their fields, as JSON Schema',
      description:
        'Generated from the zod schemas that validate each category. Each property carries x-secret, x-applies (immediately, new-sessions, restart), x-unit and x-enum-labels where they apply.',
      tag: TAG,
      access: 'admin',
      responses: { 200: { description: 'Each category with its JSON Schema and the tests it offers.', schema: ConfigSchemaResponseSchema }, 403: 'Not an administrator of the organisation.' },
    }),
    async (c) => {
      await runAdmin(c, async () => undefined)
      const body: ConfigSchemaResponse = { categories: CONFIG_CATEGORIES.map(categorySchema) }
      return c.json(body)
    },
  )
  .get(
    '/api/admin/config/status',
    operation({
      summary: 'Per category: configured or not, the last change (who, when), and the last test',
      tag: TAG,
      access: 'admin',
      responses: { 200: { description: 'Per category: configured or not, the last change and the last test.', schema: ConfigStatusSchema }, 403: 'Not an administrator of the organisation.' },
    }),
    async (c) => c.json(await runAdmin(c, (ctx) => configStatus(ctx, instanceOf(c)))),
  )
  .post(
    '/api/admin/config/tests/:kind',
    operation({
      summary: 'Test a category’s settings, saved or not: smtp sends a real message, oidc reads the discovery document, redis pings, storage writes and reads',
      description:
        'Unsaved `values` of the category override the saved ones; a secret left blank is the saved one. smtp sends to `toEmail` (the admin’s own address without it). The result is kept as the category’s last test.',
      tag: TAG,
      access: 'admin',
      params: KindParams,
      body: ConfigTestSchema,
      responses: {
        200: { description: 'The result: ok false says in words what failed.', schema: ConfigTestResultSchema },
        400: 'A value or toEmail is not valid: see errors.',
        403: 'Not an administrator of the organisation.',
        404: 'No such test.',
      },
    }),
    async (c) => {
      const kind = kindOf(c.req.valid('param').kind)
      const { config, db, now } = c.get('deps')
      // Three steps: no transaction stays open while a remote server takes its time.
      const prepared = await runAdmin(c, (ctx) => prepareConfigTest(ctx, kind, c.req.valid('json'), config.sessionSecret, instanceOf(c)))
      const general = await effectiveGeneralConfig(db, prepared.tenantId)
      const result = await executeConfigTest(prepared, { now, store: blobStoreFor(config), redisUrl: config.redisUrl, siteName: general.values.siteName })
      return c.json(await runAdmin(c, (ctx) => recordConfigTest(ctx, prepared, result, meta(c))))
    },
  )
  .get(
    '/api/admin/config/:category',
    operation({
      summary: 'A category’s values (secrets only as set or not) and version',
      tag: TAG,
      access: 'admin',
      params: CategoryParams,
      responses: {
        200: { description: 'The category’s values (secrets only say whether they are set), with the ETag `"{version}"`.', schema: ConfigCategoryValuesSchema },
        403: 'Not an administrator of the organisation.',
        404: 'No such category.',
      },
    }),
    async (c) => {
      const category = categoryOf(c.req.valid('param').category)
      const values = await runAdmin(c, (ctx) => readConfigCategory(ctx, category, instanceOf(c)))
      c.header('ETag', etag(values.version))
      return c.json(values)
    },
  )
  .put(
    '/api/admin/config/:category',
    operation({
      summary: 'Save a category',
      description:
        'The whole category’s values; a secret left blank (or out) keeps the saved one, null removes it. Needs the version edited: If-Match `"N"` or the body’s `version`. Field errors are keyed by the field’s name.',
      tag: TAG,
      access: 'admin',
      params: CategoryParams,
      headers: IfMatch,
      body: ConfigPutSchema,
      responses: {
        200: { description: 'Saved (a new version, audited admin.config.changed): the category as GET answers it, with `pendingRestart` naming fields that need a restart.', schema: ConfigCategoryValuesSchema },
        400: 'A value is not valid: see errors, keyed by field.',
        403: 'Not an administrator of the organisation.',
        404: 'No such category.',
        409: 'KR_CONFIG_CONFLICT: someone saved another version meanwhile; `currentVersion`, `yourVersion` and `current` (the values now). KR_CONFIG_READ_ONLY: set by the environment.',
        428: 'No version given (If-Match or version).',
      },
    }),
    async (c) => {
      const category = categoryOf(c.req.valid('param').category)
      const body = c.req.valid('json')
      const expected = expectedVersion(c.req.valid('header')['if-match'], body.version)
      const { config } = c.get('deps')
      const saved = await runAdmin(c, (ctx) =>
        putConfigCategory(ctx, category, body.values, { expectedVersion: expected, sessionSecret: config.sessionSecret, instance: instanceOf(c), meta: meta(c) }),
      )
      c.header('ETag', etag(saved.version))
      return c.json(saved)
    },
  )
  .get(
    '/api/admin/config/:category/versions',
    operation({
      summary: 'Every saved version of a category, newest first, with what each changed (secrets masked)',
      tag: TAG,
      access: 'admin',
      params: CategoryParams,
      responses: {
        200: { description: 'The versions, newest first, each with its changes.', schema: ConfigVersionsSchema },
        403: 'Not an administrator of the organisation.',
        404: 'No such category.',
      },
    }),
    async (c) => {
      const category = categoryOf(c.req.valid('param').category)
      const body: ConfigVersionsResponse = { items: await runAdmin(c, (ctx) => listConfigVersions(ctx, category)) }
      return c.json(body)
    },
  )
  .post(
    '/api/admin/config/:category/rollback',
    operation({
      summary: 'Restore an earlier version of a category, as a new version',
      tag: TAG,
      access: 'admin',
      params: CategoryParams,
      body: ConfigRollbackSchema,
      responses: {
        200: { description: 'Restored (audited admin.config.rolled-back): the category as GET answers it.', schema: ConfigCategoryValuesSchema },
        400: 'version is not a whole number.',
        403: 'Not an administrator of the organisation.',
        404: 'No such category, or no such version of it.',
        409: 'KR_CONFIG_READ_ONLY: set by the environment.',
      },
    }),
    async (c) => {
      const category = categoryOf(c.req.valid('param').category)
      const { version } = c.req.valid('json')
      const restored = await runAdmin(c, (ctx) => rollbackConfigCategory(ctx, category, version, { instance: instanceOf(c), meta: meta(c) }))
      c.header('ETag', etag(restored.version))
      return c.json(restored)
    },
  )
