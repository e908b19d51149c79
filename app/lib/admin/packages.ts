import { z } from 'zod'

/**
 * Administration › Packages (docs/admin/packages-and-uploads.md): the shapes of the calls and the
 * bodies both sides validate. A package's key names it for good (items store it); its name,
 * order and whether it is in use can change.
 */

/** A package key: lower-case letters, digits and hyphens, up to 40, starting with a letter or digit. */
export const PACKAGE_KEY_PATTERN = /^[a-z0-9][a-z0-9-]{0,39}$/
export const PACKAGE_NAME_MAX = 80
/** How many packages an organisation may have: a trade list, not a catalogue. */
export const PACKAGES_MAX = 200
export const SORT_ORDER_MAX = 100_000

export type AdminPackage = {
  key: string
  name: string
  active: boolean
  sortOrder: number
  /** Items (not deleted) that carry this package. */
  itemCount: number
  /** Projects that switch this package on or off themselves. */
  projectOverrideCount: number
  createdAtUtc: string
  updatedAtUtc: string
}

/** One package as a project sees it: the organisation's setting, the project's own (null: inherits) and the outcome. */
export type ProjectPackageSetting = {
  key: string
  name: string
  organisationActive: boolean
  override: boolean | null
  active: boolean
}

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
})
export type PackageListBody = z.infer<typeof PackageListBodySchema>

/** PATCH /api/admin/organisations/{id}/packages/{key}: one package's name, state or order. */
export const PackagePatchSchema = z
  .object({ name: name.optional(), active: z.boolean({ error: 'active is true or false.' }).optional(), sortOrder: sortOrder.optional() })
  .refine((v) => v.name !== undefined || v.active !== undefined || v.sortOrder !== undefined, { message: 'Send name, active or sortOrder.' })
export type PackagePatch = z.infer<typeof PackagePatchSchema>

/** PUT /api/projects/{id}/packages: the project's own settings; null (or absent) inherits the organisation's. */
export const ProjectPackagesBodySchema = z.object({
  items: z
    .array(z.object({ packageKey: key, active: z.boolean({ error: 'active is true, false or null.' }).nullable() }), { error: 'Send the settings as items.' })
    .max(PACKAGES_MAX, `An organisation has at most ${PACKAGES_MAX} packages.`),
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
