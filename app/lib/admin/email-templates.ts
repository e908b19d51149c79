/**
 * Administration › Email templates (issue 14, docs/admin/email-templates.md): the JSON shapes of
 * `/api/admin/email-templates*`, shared by the backend and the screens.
 */

/**
 * Every mail the product sends, by key: the registry's (server/mail/templates/registry.ts, whose
 * definitions are typed by it), and the enum of /api/admin/email-templates/{key}.
 */
export const EMAIL_TEMPLATE_KEYS = [
  'verify-email',
  'reset-password',
  'account-exists',
  'workflow-review',
  'workflow-due',
  'transmittal-sent',
  'document-renumbered',
  'revision-superseded',
  'invite',
  'project-invite',
  'join-request-received',
  'join-request-decided',
  'support-reply',
  'admin-password-reset',
  'email-change',
  'email-changed',
  'item-assigned',
  'item-response',
  'item-close-requested',
  'digest',
  'export-ready',
] as const
export type EmailTemplateKey = (typeof EMAIL_TEMPLATE_KEYS)[number]

export function isEmailTemplateKey(key: string): key is EmailTemplateKey {
  return (EMAIL_TEMPLATE_KEYS as readonly string[]).includes(key)
}

/** The `intent` of the edit form's answers (Save, Preview and Send test share the form). */
export const EMAIL_TEMPLATE_FORM = 'edit'

export type EmailTemplatePerson = { id: string; displayName: string }

/** One row of `GET /api/admin/email-templates`. */
export type EmailTemplateSummary = {
  key: string
  title: string
  /** When the mail is sent. */
  description: string
  /** True when this organisation saved its own version; false while the default applies. */
  customised: boolean
  /** 0 while the default applies. */
  version: number
  updatedAtUtc: string | null
  updatedBy: EmailTemplatePerson | null
}

export type EmailTemplateList = { items: EmailTemplateSummary[] }

export type EmailTemplateTexts = { subject: string; html: string; text: string }

export type EmailTemplateVariableField = { name: string; description: string; sample: string }

export type EmailTemplateVariable = {
  name: string
  description: string
  sample: string
  /** Set for a list, used as a section: its records' fields. */
  fields?: EmailTemplateVariableField[] | undefined
  /** True for the variables every template has (site name, organisation name, address). */
  common: boolean
}

/** `GET /api/admin/email-templates/{key}`: the texts that apply, the defaults, and the variables. */
export type EmailTemplateDetail = EmailTemplateSummary & EmailTemplateTexts & { defaults: EmailTemplateTexts; variables: EmailTemplateVariable[] }

/** `POST …/preview`: the mail as it would be sent with the sample data (the HTML is the whole document). */
export type EmailTemplatePreview = EmailTemplateTexts

/** `POST …/test`: the test mail is in the outbox. */
export type EmailTemplateTestResult = { queued: true; to: string; subject: string }

/** A PUT whose `version` is not the current one: 409 with both versions named and the current template. */
export type EmailTemplateConflict = { currentVersion: number; yourVersion: number; current: EmailTemplateDetail }

/**
 * The preview's HTML for a sandboxed `<iframe srcdoc>`. Such a frame inherits the page's
 * Content-Security-Policy, which refuses inline style attributes and un-nonced `<style>`: so the
 * mail's style attributes become classes of one `<style>`, and every `<style>` gets the page's
 * nonce. Declarations are marked important to keep the precedence inline styles had. Scripts
 * cannot run (the frame is sandboxed, and the mail has none).
 */
export function previewDocument(html: string, nonce: string | undefined): string {
  const rules: string[] = []
  const withClasses = html.replace(/<([a-zA-Z][a-zA-Z0-9-]*)([^>]*?)\sstyle="([^"]*)"([^>]*)>/g, (_whole, tag: string, before: string, style: string, after: string) => {
    const name = `sp-inline-${rules.length}`
    const declarations = style
      .split(';')
      .map((d) => d.trim())
      .filter((d) => d !== '' && d.includes(':'))
      .map((d) => (d.includes('!important') ? d : `${d} !important`))
      .join(';')
    rules.push(`.${name}{${declarations}}`)
    const attributes = `${before}${after}`
    const classMatch = /\sclass="([^"]*)"/.exec(attributes)
    const merged = classMatch ? attributes.replace(classMatch[0], ` class="${classMatch[1]} ${name}"`) : `${attributes} class="${name}"`
    return `<${tag}${merged}>`
  })
  const nonceAttribute = nonce ? ` nonce="${nonce.replace(/[^A-Za-z0-9+/=_-]/g, '')}"` : ''
  const nonced = withClasses.replace(/<style(\s[^>]*)?>/gi, (_whole, attributes: string | undefined) => `<style${nonceAttribute}${attributes ?? ''}>`)
  const inline = `<style${nonceAttribute}>${rules.join('\n')}</style>`
  return nonced.includes('</head>') ? nonced.replace('</head>', `${inline}</head>`) : `${inline}${nonced}`
}
