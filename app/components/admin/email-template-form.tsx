import { getFormProps, getInputProps, getTextareaProps, type SubmissionResult, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import { firstInvalidField } from '~/components/reporting/report-action'
import { CsrfInput } from '~/components/ui/csrf-input'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { SubmitButton } from '~/components/ui/submit-button'
import { TextareaField } from '~/components/ui/textarea-field'
import type { EmailTemplateDetail } from '~/lib/admin/email-templates'
import { EmailTemplateFormSchema } from '~/lib/schemas/admin-email-templates'
import { useShellSession } from '~/root'

/**
 * Administration › Email templates › one template: the subject, HTML and text bodies, and the
 * address of a test. One form carries the texts for Preview, Send test and Save, so each works on
 * what is typed, without JavaScript.
 */
export function EmailTemplateForm({ template, lastResult }: { template: EmailTemplateDetail; lastResult: SubmissionResult<string[]> | undefined }) {
  const session = useShellSession()
  const [form, fields] = useForm({
    id: 'email-template',
    lastResult,
    defaultValue: { subject: template.subject, html: template.html, text: template.text, version: String(template.version), to: session?.email ?? '' },
    defaultNoValidate: false,
    constraint: getZodConstraint(EmailTemplateFormSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: EmailTemplateFormSchema }),
  })
  const focus = firstInvalidField(lastResult, ['subject', 'html', 'text', 'to'])
  return (
    <Form method="post" {...getFormProps(form)} aria-label="Edit the template" className="flex min-w-0 flex-col gap-5">
      <CsrfInput />
      <input {...getInputProps(fields.version, { type: 'hidden' })} key={fields.version.key} />
      <FormError id={form.errorId} errors={form.errors} />
      <Field label="Subject" inputProps={{ ...getInputProps(fields.subject, { type: 'text' }), autoFocus: focus === 'subject' }} errors={fields.subject.errors} />
      <TextareaField
        label="HTML body"
        help="Paragraphs, links, lists and bold. The site wraps it in its mail layout with the site name and a footer; scripts and styles are removed."
        textareaProps={{ ...getTextareaProps(fields.html), rows: 14, spellCheck: false, className: 'font-mono text-sm', autoFocus: focus === 'html' }}
        errors={fields.html.errors}
      />
      <TextareaField
        label="Text body"
        help="The plain-text part every mail carries, for clients that show no HTML."
        textareaProps={{ ...getTextareaProps(fields.text), rows: 12, spellCheck: false, className: 'font-mono text-sm', autoFocus: focus === 'text' }}
        errors={fields.text.errors}
      />
      <div className="flex flex-wrap gap-3">
        <SubmitButton intent="save" pendingLabel="Saving…">
          Save template
        </SubmitButton>
        <SubmitButton intent="preview" variant="secondary" pendingLabel="Rendering…">
          Preview
        </SubmitButton>
      </div>
      <fieldset className="flex flex-col gap-3 rounded-md border border-border p-4">
        <legend className="px-1 text-sm font-medium">Send a test</legend>
        <p className="text-sm text-muted">Sends what is typed above, with the sample data, to one address. The subject starts with “[Test]”.</p>
        <Field
          label="Send the test to"
          inputProps={{ ...getInputProps(fields.to, { type: 'email' }), autoComplete: 'email', autoFocus: focus === 'to' }}
          errors={fields.to.errors}
        />
        <SubmitButton intent="test" variant="secondary" pendingLabel="Sending…" className="self-start">
          Send test
        </SubmitButton>
      </fieldset>
    </Form>
  )
}
