import { z } from 'zod'
import { VERSION_MAX } from './edit-conflict'

/**
 * Administration › Email templates (docs/admin/email-templates.md): what the API and the edit form
 * accept. Whether the variables in the texts exist is checked by the backend (it knows each
 * template's variables) and comes back as field errors.
 */
export const TEMPLATE_SUBJECT_MAX = 300
export const TEMPLATE_BODY_MAX = 50_000

const subject = z.string({ error: 'Write a subject.' }).trim().min(1, 'Write a subject.').max(TEMPLATE_SUBJECT_MAX, `Keep the subject to ${TEMPLATE_SUBJECT_MAX} characters.`)
/** A body keeps its whitespace (the text's last line break is the mail's), but may not be blank. */
const body = (missing: string, name: string) =>
  z
    .string({ error: missing })
    .min(1, missing)
    .max(TEMPLATE_BODY_MAX, `Keep the ${name} to ${TEMPLATE_BODY_MAX.toLocaleString('en-GB')} characters.`)
    .refine((value) => value.trim() !== '', missing)
const html = body('Write the HTML body.', 'HTML body')
const text = body('Write the text body: every mail carries a plain-text part.', 'text body')
const version = z.number({ error: 'The version you edited is missing: reload the page.' }).int().min(0).max(VERSION_MAX, 'No version is that high: reload the page.')
const to = z.email({ error: 'Enter the e-mail address to send the test to.' }).max(254, 'Enter the e-mail address to send the test to.')

/** PUT /api/admin/email-templates/{key}: `version` is the one edited (0 while the default applies). */
export const EmailTemplateSaveSchema = z.object({ subject, html, text, version }).strict()

/** POST …/preview: unsaved texts; a text left out is the current one. */
export const EmailTemplatePreviewSchema = z.object({ subject: subject.optional(), html: html.optional(), text: text.optional() }).strict()

/** POST …/test: where to send it, and optionally unsaved texts. */
export const EmailTemplateTestSchema = z.object({ to, subject: subject.optional(), html: html.optional(), text: text.optional() }).strict()

/**
 * The edit form: one form with three buttons (Preview, Send test, Save), so that every one of
 * them works on what is typed, without JavaScript. The address is only needed to send a test.
 */
export const EmailTemplateFormSchema = z.object({ subject, html, text, version, to: to.optional() })

export type EmailTemplateSaveInput = z.infer<typeof EmailTemplateSaveSchema>
export type EmailTemplatePreviewInput = z.infer<typeof EmailTemplatePreviewSchema>
export type EmailTemplateTestInput = z.infer<typeof EmailTemplateTestSchema>
