import { z } from 'zod'
import { PACKAGE_KEY_PATTERN, PACKAGE_NAME_MAX, PACKAGES_MAX, SORT_ORDER_MAX } from '~/lib/admin/packages'
import { expectedRevision } from './edit-conflict'

/** Administration › Packages: the bodies both sides validate and the screen's forms (docs/admin/packages-and-uploads.md); in the browser only their HTML constraints. */

const key = z
  .string({ error: 'Give the package key.' })
  .trim()
  .regex(PACKAGE_KEY_PATTERN, 'A key is 1 to 40 lower-case letters, digits or hyphens, starting with a letter or digit, e.g. electrical-1.')
const name = z.string({ error: 'Give the package name.' }).trim().min(1, 'Give the package name.').max(PACKAGE_NAME_MAX, `A name is at most ${PACKAGE_NAME_MAX} characters.`)
const sortOrder = z
  .number({ error: `The order is a whole number from 0 to ${SORT_ORDER_MAX}.` })
  .int(`The order is a whole number from 0 to ${SORT_ORDER_MAX}.`)
  .min(0, `The order is a whole number from 0 to ${SORT_ORDER_MAX}.`)
  .max(SORT_ORDER_MAX, `The order is a whole number from 0 to ${SORT_ORDER_MAX}.`)

export const PackageRowSchema = z.object({ key, name, active: z.boolean({ error: 'active is true or false.' }), sortOrder })

/** PUT /api/admin/organisations/{id}/packages: the whole list. */
export const PackageListBodySchema = z.object({
  items: z.array(PackageRowSchema, { error: 'Send the packages as items.' }).max(PACKAGES_MAX, `An organisation has at most ${PACKAGES_MAX} packages.`),
  expectedRevision,
})
export type PackageListBody = z.infer<typeof PackageListBodySchema>

/** PATCH /api/admin/organisations/{id}/packages/{key}: one package's name, state or order. */
export const PackagePatchSchema = z
  .object({ name: name.optional(), active: z.boolean({ error: 'active is true or false.' }).optional(), sortOrder: sortOrder.optional(), expectedRevision })
  .refine((v) => v.name !== undefined || v.active !== undefined || v.sortOrder !== undefined, { message: 'Send name, active or sortOrder.' })
export type PackagePatch = z.infer<typeof PackagePatchSchema>

/** PUT /api/projects/{id}/packages: the project's own settings; null (or absent) inherits the organisation's. */
export const ProjectPackagesBodySchema = z.object({
  items: z
    .array(z.object({ packageKey: key, active: z.boolean({ error: 'active is true, false or null.' }).nullable() }), { error: 'Send the settings as items.' })
    .max(PACKAGES_MAX, `An organisation has at most ${PACKAGES_MAX} packages.`),
  expectedRevision,
})
export type ProjectPackagesBody = z.infer<typeof ProjectPackagesBodySchema>

// The screen's forms (no JavaScript needed: each is a plain POST with an intent).

export const AddPackageFormSchema = z.object({
  key,
  name,
  sortOrder: z.coerce
    .number({ error: `The order is a whole number from 0 to ${SORT_ORDER_MAX}.` })
    .pipe(sortOrder)
    .optional(),
})

export const RenamePackageFormSchema = z.object({ key, name })

export const TogglePackageFormSchema = z.object({ key, active: z.enum(['true', 'false'], { error: 'active is true or false.' }) })
