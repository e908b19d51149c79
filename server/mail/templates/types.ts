import type { EmailTemplateKey } from '~/lib/admin/email-templates'

/** The mail templates' keys (app/lib/admin/email-templates.ts) and variables: what callers name (server/domain/mail.ts queues them). */
export type MailTemplateKey = EmailTemplateKey

/** A variable's value: text, a number, or (for a section such as the digest's items) a list of records. */
export type MailVariables = Record<string, string | number | boolean | null | Record<string, string | number | boolean | null>[]>

/** One field of a list variable (the digest's `items`): named inside its section. */
export type TemplateField = { name: string; description: string; sample: string }

/**
 * A named variable of a template. A list variable (`fields` set) is used as a section,
 * `{{#items}}…{{/items}}`, and its fields are named inside it.
 */
export type TemplateVariable = {
  name: string
  description: string
  /** What previews and test mails show (true/false for a yes/no variable used as a section). */
  sample: string | number | boolean
  /** For a list variable: its records' fields, and the sample records. */
  fields?: TemplateField[]
  samples?: Record<string, string | number | boolean>[]
}

/** The texts of one template: the subject, the HTML fragment an admin edits, and the plain text. */
export type TemplateTexts = { subject: string; html: string; text: string }

/** A mail the product sends: what it is, when it goes, its variables and its default texts. */
export type TemplateDefinition = TemplateTexts & {
  key: MailTemplateKey
  title: string
  /** When it is sent, in words an admin recognises. */
  description: string
  /** This template's own variables (the common ones are added to every template). */
  variables: TemplateVariable[]
}
