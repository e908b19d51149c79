import { z, type ZodError } from 'zod'
import { groupErrors, type FieldErrors } from '#server/http/problem'
import type { ConfigApplies, ConfigCategory, ConfigCategorySchema, ConfigFieldSchema, ConfigJsonSchema, ConfigTestKind } from '~/lib/admin/config'
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
 * The configuration categories (docs/admin/configuration.md): each one's zod schema (from
 * app/lib/schemas/admin-config.ts), the words above its form, the tests that check it, and what
 * the JSON Schema of `GET /api/admin/config/schema` says about each field.
 */

/** A category schema: an object, perhaps with a cross-field rule on top. */
export type CategorySchema = z.ZodType<Record<string, unknown>, Record<string, unknown>>

export type CategoryDefinition = {
  key: ConfigCategory
  title: string
  description: string
  schema: CategorySchema
  tests: ConfigTestKind[]
  /** Set from the server's environment: shown, never saved. */
  readOnly?: true
}

export const CATEGORIES: Record<ConfigCategory, CategoryDefinition> = {
  general: {
    key: 'general',
    title: 'General',
    description: 'The site’s name and address, and the language and time zone people start with.',
    schema: GeneralConfigSchema,
    tests: [],
  },
  security: {
    key: 'security',
    title: 'Security',
    description:
      'How long sign-ins last, whether a second factor is required, and the password rule for members. Sign-in lockout is the same for the whole server, because sign-in happens before an organisation is chosen.',
    schema: SecurityConfigSchema,
    tests: [],
  },
  mail: {
    key: 'mail',
    title: 'Mail',
    description: 'The SMTP server that sends this organisation’s mail (invitations, notifications, password resets). Send a test mail before relying on it.',
    schema: MailConfigSchema,
    tests: ['smtp'],
  },
  storage: {
    key: 'storage',
    title: 'Storage',
    description: 'How much the organisation may store, and how large one photo may be.',
    schema: StorageConfigSchema,
    tests: ['storage'],
  },
  telemetry: {
    key: 'telemetry',
    title: 'Telemetry',
    description: 'Usage events people’s browsers send, for finding what slows people down.',
    schema: TelemetryConfigSchema,
    tests: [],
  },
  'identity-provider': {
    key: 'identity-provider',
    title: 'Identity provider',
    description:
      'Sign-in with a company account: OpenID Connect with your identity provider (Business plan). At the provider, register this portal’s address followed by /auth/oidc/callback as the redirect URI; your people then sign in at /auth/login?org= followed by your organisation’s short name.',
    schema: IdentityProviderConfigSchema,
    tests: ['oidc'],
  },
  realtime: {
    key: 'realtime',
    title: 'Realtime',
    description:
      'Live updates between people working at the same time. Whoever runs the server sets this up (operations guide); it is shown here, not changed.',
    schema: RealtimeConfigSchema,
    tests: ['redis'],
    readOnly: true,
  },
  retention: {
    key: 'retention',
    title: 'Retention',
    description: 'When closed items are archived and then deleted. The same policy as Administration › Retention.',
    schema: RetentionConfigSchema,
    tests: [],
  },
}

/** The category a test kind checks. */
export const TEST_CATEGORY: Record<ConfigTestKind, ConfigCategory> = { smtp: 'mail', oidc: 'identity-provider', redis: 'realtime', storage: 'storage' }

const jsonSchemas = new Map<ConfigCategory, ConfigJsonSchema>()

/** The category's JSON Schema: what a form is drawn from (input side: fields with defaults are not required). */
export function jsonSchemaOf(category: ConfigCategory): ConfigJsonSchema {
  let schema = jsonSchemas.get(category)
  if (!schema) {
    const { $schema: _ignored, ...generated } = z.toJSONSchema(CATEGORIES[category].schema, { io: 'input', unrepresentable: 'any' }) as ConfigJsonSchema & { $schema?: string }
    schema = { ...generated, additionalProperties: false }
    jsonSchemas.set(category, schema)
  }
  return schema
}

export function categorySchema(category: ConfigCategory): ConfigCategorySchema {
  const def = CATEGORIES[category]
  return { key: def.key, title: def.title, description: def.description, schema: jsonSchemaOf(category), tests: def.tests }
}

function fieldsOf(category: ConfigCategory): [string, ConfigFieldSchema][] {
  return Object.entries(jsonSchemaOf(category).properties)
}

export function secretFields(category: ConfigCategory): string[] {
  return fieldsOf(category)
    .filter(([, field]) => field['x-secret'] === true)
    .map(([name]) => name)
}

export function appliesOf(category: ConfigCategory, field: string): ConfigApplies {
  return jsonSchemaOf(category).properties[field]?.['x-applies'] ?? 'immediately'
}

/** The defaults of the category's fields (no secrets: they have none). */
export function defaultsOf(category: ConfigCategory): Record<string, unknown> {
  return Object.fromEntries(fieldsOf(category).flatMap(([name, field]) => (field.default === undefined ? [] : [[name, field.default]])))
}

/** Optional fields without a default: a blank in a form means "no value" for them. */
export function clearableFields(category: ConfigCategory): string[] {
  const required = new Set(jsonSchemaOf(category).required ?? [])
  return fieldsOf(category)
    .filter(([name, field]) => !required.has(name) && field.default === undefined)
    .map(([name]) => name)
}

/** A failed validation as field errors keyed by field name; an unknown field is named too. */
export function categoryErrors(error: ZodError): FieldErrors {
  return groupErrors(
    error.issues.flatMap((issue): [string, string][] =>
      issue.code === 'unrecognized_keys' ? issue.keys.map((key) => [key, `${key} is not a setting of this category.`]) : [[issue.path.join('.') || '_', issue.message]],
    ),
  )
}
