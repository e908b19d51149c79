import { data, redirect } from 'react-router'
import { FORM_VERSION_FIELD } from '~/components/admin/config-form'
import { TO_EMAIL_FIELD } from '~/components/admin/config-tests'
import { loadError } from '~/components/reporting/item-action'
import { noticeOf, type Notice } from '~/components/reporting/report-action'
import { CONFIG_CATEGORIES, type ConfigCategory, type ConfigCategorySchema, type ConfigCategoryValues, type ConfigConflict, type ConfigJsonSchema, type ConfigTestKind, type ConfigTestResult } from '~/lib/admin/config'
import type { ApiClient, ApiError } from '~/lib/api/types'
import { setFlash } from '~/lib/flash.server'
import { failureStatus, formMessageFor } from '~/lib/forms'
import {
  GeneralConfigSchema,
  IdentityProviderConfigSchema,
  MailConfigSchema,
  RealtimeConfigSchema,
  RetentionConfigSchema,
  SecurityConfigSchema,
  StorageConfigSchema,
  TelemetryConfigSchema,
} from '~/lib/schemas/admin-config'

/**
 * /admin/configuration/{category} (docs/admin/configuration-screens.md): what the page loads, and
 * its three forms: save (the category's values, with the version the form was loaded with), test
 * (the form's unsaved values against one test kind) and restore (an earlier version).
 */

/** What the page needs; `schema` is the category's JSON Schema as the API describes it. */
export async function loadCategoryPage(api: ApiClient, category: string, headers: Headers) {
  const described = await categorySchema(api, category, headers)
  const [values, versions] = await Promise.all([
    api.GET('/api/admin/config/{category}', { path: { category: described.key } }),
    api.GET('/api/admin/config/{category}/versions', { path: { category: described.key } }),
  ])
  if (!values.ok) throw loadError(values.error, headers)
  return {
    category: described,
    current: values.data,
    // The history is a help, not the page: it failing leaves the form usable.
    versions: versions.ok ? versions.data.items : null,
  }
}

/** The category's description from `GET /api/admin/config/schema`; an unknown category is the 404 screen. */
async function categorySchema(api: ApiClient, category: string, headers: Headers): Promise<ConfigCategorySchema> {
  if (!isCategory(category)) throw data(null, { status: 404, statusText: 'Not found', headers })
  const schema = await api.GET('/api/admin/config/schema')
  if (!schema.ok) throw loadError(schema.error, headers)
  const found = schema.data.categories.find((c) => c.key === category)
  if (!found) throw data(null, { status: 404, statusText: 'Not found', headers })
  return found
}

function isCategory(value: string): value is ConfigCategory {
  return (CONFIG_CATEGORIES as readonly string[]).includes(value)
}

/** What a failed save or test sends back: everything typed (secrets aside), the errors, and the form's version. */
export type ConfigActionData = {
  intent: 'save' | 'test' | 'restore'
  /** Tells two answers apart, so the form is drawn afresh from each (with JavaScript as without). */
  submissionId: string
  /** The version the form was loaded with; after a conflict, the one that replaced it. */
  formVersion?: number | undefined
  /** What was typed, by field (checkboxes as booleans); never a secret. */
  typed?: Record<string, string | boolean> | undefined
  /** Secrets that were typed and are not sent back: the page asks for them again. */
  secretsTyped?: string[] | undefined
  toEmail?: string | undefined
  errors?: Record<string, string[]> | undefined
  formErrors?: string[] | undefined
  notice?: Notice | undefined
  conflict?: ConfigConflict | undefined
  test?: ConfigTestResult | undefined
}

type Typed = { values: Record<string, unknown>; typed: Record<string, string | boolean>; secretsTyped: string[]; formVersion: number | undefined }

/**
 * Reads the category's fields out of a posted form, the way the schema types them: a checkbox is
 * true when sent, a number is a number (or the text typed, for the schema to refuse), an empty
 * optional text is left out, and an empty secret is left out too (the saved one is kept).
 */
export function readCategoryForm(schema: ConfigJsonSchema, formData: FormData): Typed {
  const values: Record<string, unknown> = {}
  const typed: Record<string, string | boolean> = {}
  const secretsTyped: string[] = []
  for (const [name, field] of Object.entries(schema.properties)) {
    // Read-only fields (set by the server's environment) are shown, never sent.
    if (field.readOnly) continue
    if (field.type === 'boolean') {
      const on = formData.get(name) !== null
      values[name] = on
      typed[name] = on
      continue
    }
    const raw = formData.get(name)
    const text = typeof raw === 'string' ? raw : ''
    if (field['x-secret']) {
      if (text !== '') {
        values[name] = text
        secretsTyped.push(name)
      }
      continue
    }
    typed[name] = text
    const trimmed = text.trim()
    if (trimmed === '') {
      // A blank optional field without a default is "no value"; any other blank is for the schema to refuse.
      if (!clearable(schema, name)) values[name] = ''
      continue
    }
    if (field.type === 'integer' || field.type === 'number') {
      const number = Number(trimmed)
      values[name] = Number.isFinite(number) ? number : trimmed
    } else {
      values[name] = trimmed
    }
  }
  const version = Number(formData.get(FORM_VERSION_FIELD))
  return { values, typed, secretsTyped, formVersion: Number.isInteger(version) && version >= 0 ? version : undefined }
}

/** The zod schemas the API validates each category with (app/lib/schemas/admin-config.ts). */
const CATEGORY_SCHEMAS = {
  general: GeneralConfigSchema,
  security: SecurityConfigSchema,
  mail: MailConfigSchema,
  storage: StorageConfigSchema,
  telemetry: TelemetryConfigSchema,
  'identity-provider': IdentityProviderConfigSchema,
  realtime: RealtimeConfigSchema,
  retention: RetentionConfigSchema,
} satisfies Record<ConfigCategory, unknown>

/** Optional and without a default: a blank means no value (as the API reads it). */
export function clearable(schema: ConfigJsonSchema, name: string): boolean {
  return !(schema.required ?? []).includes(name) && schema.properties[name]?.default === undefined
}

/** The same zod schema the API validates with; its messages go next to their fields. */
function validate(category: ConfigCategory, values: Record<string, unknown>) {
  const parsed = CATEGORY_SCHEMAS[category].safeParse(values)
  if (parsed.success) return null
  const errors: Record<string, string[]> = {}
  const formErrors: string[] = []
  for (const issue of parsed.error.issues) {
    const field = issue.path[0]
    if (typeof field === 'string') (errors[field] ??= []).push(issue.message)
    else formErrors.push(issue.message)
  }
  return { errors, formErrors }
}

function answer(result: Omit<ConfigActionData, 'submissionId'>, status: number, headers?: Headers) {
  return data<ConfigActionData>({ ...result, submissionId: crypto.randomUUID() }, { status, headers })
}

/** A call failed: field errors beside their fields, anything else above the form; the input comes back. */
function callFailure(intent: 'save' | 'test', form: Typed & { toEmail?: string }, error: ApiError, headers: Headers) {
  // The API names a category field inside its body (`values.port`); the form names it `port`.
  const errors = Object.fromEntries(Object.entries(error.problem?.errors ?? {}).map(([field, messages]) => [field.replace(/^values\./, ''), messages]))
  const fieldErrors = Object.keys(errors).length > 0
  const kept = { intent, formVersion: form.formVersion, typed: form.typed, secretsTyped: form.secretsTyped, toEmail: form.toEmail }
  if (error.status === 403 || error.status === 404) return answer({ ...kept, notice: noticeOf(error) }, failureStatus(error), headers)
  return answer({ ...kept, errors, formErrors: fieldErrors ? [] : [formMessageFor(error)] }, failureStatus(error), headers)
}

/** "Save": validated here first (no round trip for a typo), then PUT with the version the form was loaded with. */
export async function saveCategory(api: ApiClient, category: string, formData: FormData, headers: Headers) {
  const described = await categorySchema(api, category, headers)
  const form = readCategoryForm(described.schema, formData)
  const kept = { intent: 'save' as const, formVersion: form.formVersion, typed: form.typed, secretsTyped: form.secretsTyped }
  const invalid = validate(described.key, form.values)
  if (invalid) return answer({ ...kept, ...invalid }, 400, headers)
  if (form.formVersion === undefined) return answer({ ...kept, formErrors: ['The form lost its version: reload the page and try again.'] }, 400, headers)
  const saved = await api.PUT('/api/admin/config/{category}', { path: { category: described.key }, body: { values: form.values, version: form.formVersion }, headers: { 'If-Match': `"${form.formVersion}"` } })
  if (!saved.ok) {
    const conflict = conflictOf(saved.error)
    if (conflict) return answer({ ...kept, formVersion: conflict.currentVersion, conflict }, 409, headers)
    return callFailure('save', form, saved.error, headers)
  }
  const restart = saved.data.pendingRestart.map((name) => described.schema.properties[name]?.title ?? name)
  await setFlash(headers, {
    tone: restart.length > 0 ? 'warning' : 'success',
    message: restart.length > 0 ? `Saved. These take effect after a restart of the server: ${restart.join(', ')}.` : 'Saved.',
    id: crypto.randomUUID(),
  })
  throw redirect(`/admin/configuration/${described.key}`, { headers })
}

/** The 409 of a PUT that was not on the current version: both versions, and the values saved meanwhile. */
function conflictOf(error: ApiError): ConfigConflict | null {
  const problem = error.problem
  if (error.status !== 409 || !problem) return null
  const { currentVersion, yourVersion, current } = problem as { currentVersion?: unknown; yourVersion?: unknown; current?: unknown }
  if (typeof currentVersion !== 'number' || typeof yourVersion !== 'number' || typeof current !== 'object' || current === null) return null
  return { currentVersion, yourVersion, current: current as ConfigCategoryValues }
}

/** "Test": the form's current values, saved or not, against one kind; smtp sends to `toEmail`. */
export async function testCategory(api: ApiClient, category: string, kind: string, formData: FormData, headers: Headers) {
  const described = await categorySchema(api, category, headers)
  if (!described.tests.includes(kind as ConfigTestKind)) throw data('Unknown test', { status: 400 })
  const form = readCategoryForm(described.schema, formData)
  const toEmail = String(formData.get(TO_EMAIL_FIELD) ?? '').trim()
  const body = kind === 'smtp' ? { values: form.values, toEmail } : { values: form.values }
  const tested = await api.POST('/api/admin/config/tests/{kind}', { path: { kind: kind as ConfigTestKind }, body })
  if (!tested.ok) return callFailure('test', { ...form, toEmail }, tested.error, headers)
  return answer({ intent: 'test', formVersion: form.formVersion, typed: form.typed, secretsTyped: form.secretsTyped, toEmail, test: tested.data }, 200, headers)
}

/** "Restore": an earlier version becomes the newest, after the confirmation. */
export async function restoreVersion(api: ApiClient, category: string, formData: FormData, headers: Headers) {
  const described = await categorySchema(api, category, headers)
  const version = Number(formData.get('version'))
  if (!Number.isInteger(version) || version < 1) throw data('Choose a version.', { status: 400 })
  const restored = await api.POST('/api/admin/config/{category}/rollback', { path: { category: described.key }, body: { version } })
  if (!restored.ok) return answer({ intent: 'restore', notice: noticeOf(restored.error) }, failureStatus(restored.error), headers)
  const restart = restored.data.pendingRestart.map((name) => described.schema.properties[name]?.title ?? name)
  await setFlash(headers, {
    tone: restart.length > 0 ? 'warning' : 'success',
    message: `Version ${version} restored as version ${restored.data.version}.${restart.length > 0 ? ` These take effect after a restart of the server: ${restart.join(', ')}.` : ''}`,
    id: crypto.randomUUID(),
  })
  throw redirect(`/admin/configuration/${described.key}`, { headers })
}
