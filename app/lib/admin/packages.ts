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
  /** The organisation's package list's revision (every package's save moves it): send it back as expectedRevision. */
  revision: number
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
