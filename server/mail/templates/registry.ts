import type { MailTemplateKey } from '#server/mail/templates/types'
import { accountTemplates } from './defaults-account'
import { organisationTemplates } from './defaults-organisation'
import { workTemplates } from './defaults-work'
import type { TemplateDefinition, TemplateVariable } from './types'

/** The site's name when the configuration names none (spec §2: the product is "Site Portal"). */
export const DEFAULT_SITE_NAME = 'Site Portal'

/** Every template may use these; the outbox fills them in (docs/admin/email-templates.md). */
export const COMMON_VARIABLES: TemplateVariable[] = [
  { name: 'siteName', description: 'The site’s name (Configuration › General).', sample: DEFAULT_SITE_NAME },
  { name: 'organisationName', description: 'This organisation’s name (empty for mail sent before one exists).', sample: 'Northwind Construction' },
  { name: 'publicUrl', description: 'The address of the site.', sample: 'https://portal.example.com' },
]

const ALL: TemplateDefinition[] = [...accountTemplates, ...organisationTemplates, ...workTemplates]

const BY_KEY = new Map<string, TemplateDefinition>(ALL.map((t) => [t.key, t]))

/** Every mail the product sends, in the order the list shows them. */
export function templateDefinitions(): readonly TemplateDefinition[] {
  return ALL
}

/** The definition of a key, or undefined for a key the product does not send (a 404 for the API). */
export function templateDefinition(key: string): TemplateDefinition | undefined {
  return BY_KEY.get(key)
}

export function requireDefinition(key: MailTemplateKey): TemplateDefinition {
  const found = BY_KEY.get(key)
  if (!found) throw new Error(`No mail template ${key}`)
  return found
}

/** The template's own variables after the common ones. */
export function variablesOf(definition: TemplateDefinition): TemplateVariable[] {
  return [...COMMON_VARIABLES, ...definition.variables]
}

/** The sample values of every variable: what previews and test mails render. */
export function sampleVariables(definition: TemplateDefinition): Record<string, string | number | boolean | Record<string, string | number | boolean>[]> {
  return Object.fromEntries(variablesOf(definition).map((v) => [v.name, v.fields ? (v.samples ?? []) : v.sample]))
}
