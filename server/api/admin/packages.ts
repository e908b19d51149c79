import { Hono, type Context } from 'hono'
import { z } from 'zod'
import { runAdmin } from '#server/api/admin/run'
import { PACKAGE_KEY_PATTERN } from '~/lib/admin/packages'
import { getProjectPackageSettings, listAdminPackages, patchPackage, replacePackages, setProjectPackages, type AuditMeta } from '#server/domain/admin/packages'
import type { BackendEnv } from '#server/http/env'
import { operation } from '#server/http/contract'
import { AdminPackageListSchema, AdminPackageSchema, ProjectPackageSettingsSchema } from '~/lib/schemas/admin-responses'
import { PackageListBodySchema, PackagePatchSchema, ProjectPackagesBodySchema } from '~/lib/schemas/admin-packages'
import { STALE_WRITE } from '~/lib/schemas/edit-conflict'

/** docs/admin/packages-and-uploads.md "Packages": the organisation's packages and a project's own settings; administrators only. */

const OrganisationParams = z.object({ id: z.string() })
const PackageParams = z.object({ id: z.string(), key: z.string().meta({ pattern: PACKAGE_KEY_PATTERN.source, description: 'A package key; one that names no package is 404.' }) })
const ProjectParams = z.object({ id: z.string() })

function meta(c: Context<BackendEnv>): AuditMeta {
  return { ip: c.get('ip'), correlationId: c.get('correlationId') }
}

const listDescription = {
  description: 'The packages by order, then name; itemCount: items not deleted that carry it; `revision`, the list’s, for the next save.',
  schema: AdminPackageListSchema,
}

export const adminPackageRoutes = new Hono<BackendEnv>()
  .get(
    '/api/admin/organisations/:id/packages',
    operation({
      summary: 'The organisation’s packages, active or not, with how many items use each',
      tag: 'Packages',
      access: 'admin',
      params: OrganisationParams,
      responses: { 200: listDescription, 403: 'Not an administrator of the organisation.', 404: 'Not the session’s organisation.' },
    }),
    async (c) => c.json(await runAdmin(c, (ctx) => listAdminPackages(ctx, c.req.param('id')))),
  )
  .put(
    '/api/admin/organisations/:id/packages',
    operation({
      summary: 'Replace the organisation’s package list: add, rename, reorder, activate, deactivate',
      description:
        'The whole list, `{ items: [{ key, name, active, sortOrder }] }`. New keys are added; a key left out is removed only when no item carries it (deactivate it instead). Every change is audited (`admin.package.changed`).',
      tag: 'Packages',
      access: 'admin',
      params: OrganisationParams,
      body: PackageListBodySchema,
      responses: {
        200: listDescription,
        400: 'The body is not valid: see errors (`items.{n}.key`, …).',
        403: 'Not an administrator of the organisation.',
        404: 'Not the session’s organisation.',
        409: STALE_WRITE,
        422: 'A key or name is listed twice, or a package items use was left out: see errors.',
      },
    }),
    async (c) => c.json(await runAdmin(c, (ctx) => replacePackages(ctx, c.req.param('id'), c.req.valid('json'), meta(c)))),
  )
  .patch(
    '/api/admin/organisations/:id/packages/:key',
    operation({
      summary: 'Rename, reorder, activate or deactivate one package',
      tag: 'Packages',
      access: 'admin',
      params: PackageParams,
      body: PackagePatchSchema,
      responses: {
        200: { description: 'The package.', schema: AdminPackageSchema },
        400: 'The body is not valid: see errors.',
        403: 'Not an administrator of the organisation.',
        404: 'Not the session’s organisation, or no such package.',
        409: STALE_WRITE,
        422: 'Another package has that name.',
      },
    }),
    async (c) => {
      const { id, key } = c.req.valid('param')
      return c.json(await runAdmin(c, (ctx) => patchPackage(ctx, id, key, c.req.valid('json'), meta(c))))
    },
  )
  .get(
    '/api/admin/projects/:id/packages',
    operation({
      summary: 'A project’s package settings: the organisation’s, the project’s own, and the outcome',
      tag: 'Packages',
      access: 'admin',
      params: ProjectParams,
      responses: {
        200: { description: 'Each package for the project: override true, false, or null (inherits).', schema: ProjectPackageSettingsSchema },
        403: 'Not an administrator of the organisation.',
        404: 'No such project.',
      },
    }),
    async (c) => c.json(await runAdmin(c, (ctx) => getProjectPackageSettings(ctx, c.req.param('id')))),
  )
  .put(
    '/api/projects/:id/packages',
    operation({
      summary: 'Set a project’s own package settings (administrators)',
      description: '`{ items: [{ packageKey, active }] }`: true or false switches the package on or off on this project; null, or not listed, follows the organisation.',
      tag: 'Packages',
      access: 'admin',
      params: ProjectParams,
      body: ProjectPackagesBodySchema,
      responses: {
        200: { description: 'The project’s settings, as GET /api/admin/projects/{id}/packages answers.', schema: ProjectPackageSettingsSchema },
        400: 'The body is not valid: see errors.',
        403: 'Not an administrator of the organisation.',
        404: 'No such project.',
        409: STALE_WRITE,
        422: 'An unknown package, or one listed twice: see errors.',
      },
    }),
    async (c) => c.json(await runAdmin(c, (ctx) => setProjectPackages(ctx, c.req.param('id'), c.req.valid('json'), meta(c)))),
  )
