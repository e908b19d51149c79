/**
 * Administration › Configuration (issue 14, docs/admin/configuration.md): the JSON shapes of
 * `/api/admin/config/*`, shared by the backend and the screens. The category schemas themselves
 * (zod, the one source of truth) live in app/lib/schemas/admin-config.ts.
 */

export const CONFIG_CATEGORIES = ['general', 'security', 'mail', 'storage', 'telemetry', 'identity-provider', 'realtime', 'retention'] as const
export type ConfigCategory = (typeof CONFIG_CATEGORIES)[number]

export const CONFIG_TEST_KINDS = ['smtp', 'oidc', 'redis', 'storage'] as const
export type ConfigTestKind = (typeof CONFIG_TEST_KINDS)[number]

/** When a saved change takes effect. */
export type ConfigApplies = 'immediately' | 'new-sessions' | 'restart'

/** JSON Schema (draft 2020-12) as `z.toJSONSchema` writes it, with our keywords on each property. */
export type ConfigJsonSchema = {
  type: 'object'
  properties: Record<string, ConfigFieldSchema>
  required?: string[]
  additionalProperties?: boolean
}

export type ConfigFieldSchema = {
  type?: 'string' | 'integer' | 'number' | 'boolean'
  title?: string
  description?: string
  default?: unknown
  enum?: (string | number)[]
  format?: string
  minimum?: number
  maximum?: number
  minLength?: number
  maxLength?: number
  pattern?: string
  /** Set by the server's environment: shown, never edited (JSON Schema's own keyword). */
  readOnly?: boolean
  /** Write-only: never sent back; shown as "set" when it has a value. */
  'x-secret'?: boolean
  /** When a change of this field takes effect. */
  'x-applies'?: ConfigApplies
  /** Labels of the enum's values, in its order. */
  'x-enum-labels'?: string[]
  /** The unit shown after the input (minutes, MB, …). */
  'x-unit'?: string
}

/** One category in `GET /api/admin/config/schema`. */
export type ConfigCategorySchema = {
  key: ConfigCategory
  title: string
  description: string
  schema: ConfigJsonSchema
  /** The test kinds that check this category (smtp for mail, …). */
  tests: ConfigTestKind[]
}

export type ConfigSchemaResponse = { categories: ConfigCategorySchema[] }

export type ConfigTestResult = {
  kind: ConfigTestKind
  ok: boolean
  /** In words an admin acts on: what failed and what to check. */
  message: string
  /** Technical detail (the server's reply, an error code), when there is one. */
  detail?: string | undefined
  testedAtUtc: string
  testedBy?: string | undefined
  durationMs: number
}

/** `GET /api/admin/config/{category}`; also sent with the ETag header `"{version}"`. */
export type ConfigCategoryValues = {
  category: ConfigCategory
  /** 0 when never saved (the values are the defaults). */
  version: number
  configured: boolean
  /** Every field but secrets; secrets are left out. */
  values: Record<string, unknown>
  /** Per secret field: whether a value is set. */
  secrets: Record<string, { set: boolean }>
  updatedAtUtc: string | null
  updatedBy: { id: string; displayName: string } | null
  lastTest: ConfigTestResult | null
  /** Fields whose saved change needs a restart to take effect, if any (after a PUT). */
  pendingRestart: string[]
}

export type ConfigStatusEntry = {
  category: ConfigCategory
  title: string
  configured: boolean
  version: number
  updatedAtUtc: string | null
  updatedBy: { id: string; displayName: string } | null
  lastTest: ConfigTestResult | null
}

export type ConfigStatusResponse = { categories: ConfigStatusEntry[] }

/** One saved version, for the history and rollback (`GET /api/admin/config/{category}/versions`). */
export type ConfigVersion = {
  version: number
  changedAtUtc: string
  changedBy: { id: string; displayName: string } | null
  restoredFrom: number | null
  /** Field-by-field difference from the version before; secrets masked as "••••" (changed) or unchanged. */
  changes: { field: string; before: unknown; after: unknown }[]
}

/**
 * A PUT whose If-Match (or body `version`) is not the current version: 409 with both versions
 * named (the problem's `currentVersion` and `yourVersion`) and the current values, so nothing is lost.
 */
export type ConfigConflict = { currentVersion: number; yourVersion: number; current: ConfigCategoryValues }

/** `GET /api/admin/config/{category}/versions`: newest first. */
export type ConfigVersionsResponse = { items: ConfigVersion[] }
