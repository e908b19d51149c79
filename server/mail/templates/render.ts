import Mustache from 'mustache'
import type { MailVariables } from '#server/mail/templates/types'
import { variablesOf } from './registry'
import { wrapInLayout } from './layout'
import { sanitizeHtml, escapeHtml } from './sanitize'
import type { TemplateDefinition, TemplateTexts, TemplateVariable } from './types'

/** The fields of a template as the API names them, and how an error names each. */
export const TEMPLATE_FIELDS = { subject: 'the subject', html: 'the HTML body', text: 'the text body' } as const satisfies Record<keyof TemplateTexts, string>
type FieldName = keyof typeof TEMPLATE_FIELDS

export type TemplateErrors = Partial<Record<FieldName, string[]>>

/** The rendered mail: the subject line, the whole HTML document (layout included) and the plain text. */
export type RenderedMail = { subject: string; html: string; text: string }

type Token = [string, string, number, number, Token[]?, number?]

/**
 * Checks a template's three texts by parsing them (never by rendering with blanks): an unknown
 * variable, a list used as a value, an unclosed section or broken tag is an error naming the field
 * and the variable. Empty when all is well.
 */
export function validateTemplate(definition: TemplateDefinition, texts: TemplateTexts): TemplateErrors {
  const errors: TemplateErrors = {}
  const variables = variablesOf(definition)
  for (const field of Object.keys(TEMPLATE_FIELDS) as FieldName[]) {
    const found = validateText(texts[field], field, variables)
    if (found.length > 0) errors[field] = found
  }
  return errors
}

function validateText(source: string, field: FieldName, variables: TemplateVariable[]): string[] {
  const where = TEMPLATE_FIELDS[field]
  let tokens: Token[]
  try {
    tokens = Mustache.parse(source) as unknown as Token[]
  } catch (error) {
    return [parseMessage(error instanceof Error ? error.message : String(error), where)]
  }
  const topLevel = new Map(variables.map((v) => [v.name, v]))
  const problems = new Set<string>()
  const walk = (list: Token[], scopes: Array<Set<string>>, inSection: boolean) => {
    for (const token of list) {
      const [type, name] = token
      if (type === 'text' || type === '!') continue
      if (type === '>') {
        problems.add(`Partials ({{>${name}}}) are not supported in ${where}.`)
        continue
      }
      if (type === '=') {
        problems.add(`Changing the delimiters ({{=…=}}) is not supported in ${where}.`)
        continue
      }
      if (type === '&' && field === 'html') {
        problems.add(`Unescaped values ({{{${name}}}} or {{&${name}}}) are not allowed in ${where}: use {{${name}}}.`)
        continue
      }
      const known = name === '.' ? inSection : scopes.some((scope) => scope.has(name))
      if (!known) {
        problems.add(
          name === '.'
            ? `{{.}} in ${where} only works inside a section.`
            : `Unknown variable {{${name}}} in ${where}. Known: ${[...new Set(scopes.flatMap((scope) => [...scope]))].join(', ')}.`,
        )
        continue
      }
      const variable = topLevel.get(name)
      const isList = variable?.fields !== undefined && scopes[0]?.has(name) === true && !scopes.slice(1).some((scope) => scope.has(name))
      if ((type === 'name' || type === '&') && isList) {
        problems.add(`{{${name}}} in ${where} is a list: use it as a section, {{#${name}}}…{{/${name}}}.`)
        continue
      }
      if (type === '#' || type === '^') {
        const inner = type === '#' && isList && variable?.fields ? [new Set(variable.fields.map((f) => f.name)), ...scopes] : scopes
        walk(token[4] ?? [], inner, true)
      }
    }
  }
  walk(tokens, [new Set(topLevel.keys())], false)
  return [...problems]
}

/** mustache's parse errors, in words an administrator acts on. */
function parseMessage(message: string, where: string): string {
  const unclosed = /^Unclosed section "(.*)" at/.exec(message)
  if (unclosed) return `The section {{#${unclosed[1]}}} in ${where} is not closed: add {{/${unclosed[1]}}}.`
  const unopened = /^Unopened section "(.*)" at/.exec(message)
  if (unopened) return `{{/${unopened[1]}}} in ${where} closes a section that was never opened.`
  if (/^Unclosed tag/.test(message)) return `A tag in ${where} is not closed: every {{ needs its }}.`
  return `${where[0]?.toUpperCase()}${where.slice(1)} cannot be read: ${message}.`
}

const plain = (value: unknown) => String(value)

/** Renders a checked template with these values: the subject on one line, the HTML inside the layout, and the text. */
export async function renderTemplate(texts: TemplateTexts, variables: MailVariables): Promise<RenderedMail> {
  const view = { ...variables }
  const subject = Mustache.render(texts.subject, view, {}, { escape: plain }).replace(/\s+/g, ' ').trim()
  const text = Mustache.render(texts.text, view, {}, { escape: plain })
  const body = sanitizeHtml(Mustache.render(texts.html, view, {}, { escape: (value: unknown) => escapeHtml(String(value)) }))
  const html = await wrapInLayout({
    subject,
    siteName: String(variables.siteName ?? ''),
    organisationName: String(variables.organisationName ?? ''),
    publicUrl: String(variables.publicUrl ?? ''),
    bodyHtml: body,
    preview: firstLine(text),
  })
  return { subject, html, text }
}

/** The preview line most clients show after the subject: the text's first line with words. */
function firstLine(text: string): string {
  return (text.split('\n').find((line) => line.trim() !== '') ?? '').trim().slice(0, 140)
}
