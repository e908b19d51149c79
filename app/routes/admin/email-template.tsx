import { data, Link, useActionData, useRouteLoaderData } from 'react-router'
import { Badge } from '~/components/ui/badge'
import { Banner } from '~/components/ui/banner'
import { Card } from '~/components/ui/card'
import { ConfirmDialog } from '~/components/ui/confirm-dialog'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { EMAIL_TEMPLATE_FORM, previewDocument, type EmailTemplateDetail, type EmailTemplatePreview } from '~/lib/admin/email-templates'
import { createServerApi } from '~/lib/api.server'
import { documentNonce } from '~/lib/appearance-nonce'
import { formatDateTime } from '~/lib/format'
import { useLocale, type loader as rootLoader } from '~/root'
import type { Route } from './+types/email-template'
import { loadTemplate, previewTemplate, resetTemplate, saveTemplate, sendTest, templateKey } from './email-template.server'
import type { EmailTemplateActionData } from './email-template.server'
import { deferred, partsBeforeNavigation } from '~/components/ui/deferred'

// The form hydrates after the rest of the screen (app/components/ui/deferred.tsx), so the form
// library is not in the screen's first load.
const loadEmailTemplateForm = async () => (await import('~/components/admin/email-template-form')).EmailTemplateForm
const EmailTemplateForm = deferred(loadEmailTemplateForm, import.meta.env.SSR ? await loadEmailTemplateForm() : undefined)
await partsBeforeNavigation(EmailTemplateForm)

/**
 * Administration › Email templates › one template (docs/admin/email-templates.md): edit the
 * subject, HTML and text bodies with the template's variables, preview what was typed with sample
 * data, send it as a test, save it, or go back to the default. One form carries the texts for
 * Preview, Send test and Save, so each works on what is typed, without JavaScript.
 */
export async function loader({ request, context, params }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  const template = await loadTemplate(api, templateKey(params.key, responseHeaders), responseHeaders)
  return data({ template }, { headers: responseHeaders })
}

export async function action({ request, context, params }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const key = templateKey(params.key, responseHeaders)
  switch (String(formData.get('intent') ?? '')) {
    case 'save':
      return saveTemplate(api, key, formData, responseHeaders)
    case 'preview':
      return previewTemplate(api, key, formData, responseHeaders)
    case 'test':
      return sendTest(api, key, formData, responseHeaders)
    case 'reset':
      return resetTemplate(api, key, responseHeaders)
    default:
      throw data('Unknown intent', { status: 400 })
  }
}

export default function EmailTemplate({ loaderData }: Route.ComponentProps) {
  const { template } = loaderData
  const actionData = useActionData<typeof action>() as EmailTemplateActionData | undefined
  const locale = useLocale()
  const notice = actionData?.notice
  return (
    <>
      <p className="mb-2 text-sm">
        <Link to="/admin/email-templates" className="text-primary-strong underline underline-offset-2">
          Email templates
        </Link>
      </p>
      <PageHeader title={template.title} description={template.description} />
      <p className="mb-6 flex flex-wrap items-center gap-2 text-sm text-muted">
        {template.customised ? <Badge tone="info">Customised</Badge> : <Badge>Default</Badge>}
        {template.updatedAtUtc ? (
          <span>
            Changed {formatDateTime(template.updatedAtUtc, locale)}
            {template.updatedBy ? ` by ${template.updatedBy.displayName}` : ''} (version {template.version}).
          </span>
        ) : (
          <span>This organisation uses the default.</span>
        )}
      </p>
      {notice ? (
        <Banner tone="critical" title="That did not work" correlationId={notice.correlationId} className="mb-6">
          {notice.message}
        </Banner>
      ) : null}
      {actionData?.sent ? (
        <Banner tone="success" title="Test mail sent" className="mb-6">
          “{actionData.sent.subject}” is on its way to {actionData.sent.to}, with the sample data. Nothing was saved.
        </Banner>
      ) : null}
      <div className="flex flex-col gap-10">
        {actionData?.preview ? <Preview preview={actionData.preview} /> : null}
        <div className="grid gap-8 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
          {/* A new version (saved, or reset) starts the form afresh from what is stored. */}
          <EmailTemplateForm key={template.version} template={template} lastResult={actionData?.intent === EMAIL_TEMPLATE_FORM ? actionData.result : undefined} />
          <Variables template={template} />
        </div>
        {template.customised ? (
          <Section title="Reset to default" description="Go back to the words the site came with. This organisation’s version is deleted.">
            <ConfirmDialog
              triggerLabel="Reset to default…"
              title={`Reset “${template.title}” to the default?`}
              confirmLabel="Yes, reset to default"
              pendingLabel="Resetting…"
              intent="reset"
            >
              Your organisation’s subject, HTML and text for this mail are deleted; mail sent from now on uses the default.
            </ConfirmDialog>
          </Section>
        ) : null}
      </div>
    </>
  )
}

function Variables({ template }: { template: EmailTemplateDetail }) {
  return (
    <Card className="min-w-0 self-start">
      <h2 className="text-base font-semibold">Variables</h2>
      <p className="mt-1 text-sm text-muted">
        Write <code>{'{{name}}'}</code> where a value goes. Show a part only when a value is there with <code>{'{{#name}}…{{/name}}'}</code>, or when it is not with{' '}
        <code>{'{{^name}}…{{/name}}'}</code>. Any other name is an error.
      </p>
      <dl className="mt-4 flex flex-col gap-3 text-sm">
        {template.variables.map((variable) => (
          <div key={variable.name}>
            <dt>
              <code className="font-semibold break-all">{variable.fields ? `{{#${variable.name}}}…{{/${variable.name}}}` : `{{${variable.name}}}`}</code>
            </dt>
            <dd className="text-muted">
              {variable.description}
              {variable.sample ? <span className="block break-all">Sample: {variable.sample}</span> : null}
              {variable.fields ? (
                <ul className="mt-1 list-disc pl-5">
                  {variable.fields.map((field) => (
                    <li key={field.name}>
                      <code>{`{{${field.name}}}`}</code>: {field.description}
                    </li>
                  ))}
                </ul>
              ) : null}
            </dd>
          </div>
        ))}
      </dl>
    </Card>
  )
}

function Preview({ preview }: { preview: EmailTemplatePreview }) {
  const root = useRouteLoaderData<typeof rootLoader>('root')
  const nonce = documentNonce(root?.cspNonce)
  return (
    <Section title="Preview" description="What is typed below, with the sample data. Not saved yet.">
      <Card className="flex flex-col gap-4">
        <div>
          <h3 className="text-sm font-medium text-muted">Subject</h3>
          <p className="mt-1 font-medium" data-testid="preview-subject">
            {preview.subject}
          </p>
        </div>
        <div>
          <h3 className="text-sm font-medium text-muted">HTML</h3>
          <iframe
            title="HTML preview of the mail"
            sandbox=""
            srcDoc={previewDocument(preview.html, nonce)}
            className="mt-1 h-[32rem] w-full rounded-md border border-border bg-white"
            suppressHydrationWarning
          />
        </div>
        <div>
          <h3 className="text-sm font-medium text-muted">Text</h3>
          <pre className="mt-1 overflow-x-auto rounded-md border border-border bg-surface p-3 text-sm whitespace-pre-wrap">{preview.text}</pre>
        </div>
      </Card>
    </Section>
  )
}

export function meta({ data: loaded }: Route.MetaArgs) {
  return [{ title: `${loaded?.template.title ?? 'Email template'} · Site Portal` }]
}
