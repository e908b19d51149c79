import { data, Form, Link, useActionData } from 'react-router'
import type { ReportingActionData } from '~/components/reporting/report-action'
import { Badge } from '~/components/ui/badge'
import { Banner } from '~/components/ui/banner'
import { Card } from '~/components/ui/card'
import { ConfirmDialog } from '~/components/ui/confirm-dialog'
import { CsrfInput } from '~/components/ui/csrf-input'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { SubmitButton } from '~/components/ui/submit-button'
import { useLiveRevalidation } from '~/islands/realtime/use-live-revalidation'
import { isMailMessageId, MAIL_CANCELLABLE, MAIL_RETRYABLE, MAIL_STATUS_LABELS, MAIL_STATUS_TONES, type MailMessageDetail } from '~/lib/admin/mail-outbox'
import { createServerApi } from '~/lib/api.server'
import { formatDateTime } from '~/lib/format'
import { useLocale } from '~/root'
import type { Route } from './+types/mail-message'
import { changeMailMessage, loadMailMessage } from './mail-message.server'

/**
 * Administration › Mail outbox › one message (docs/admin/mail.md "The outbox page"): who it is
 * for, what became of it, its text and HTML parts, and send it again now or cancel it.
 */
function messageId(params: { messageId?: string }): string {
  if (!isMailMessageId(params.messageId)) throw data(null, { status: 404, statusText: 'Not found' })
  return params.messageId
}

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const id = messageId(params)
  const { api, responseHeaders } = createServerApi(request, context)
  const { message, templateName } = await loadMailMessage(api, id, responseHeaders)
  return data({ message, templateName }, { headers: responseHeaders })
}

export async function action({ request, context, params }: Route.ActionArgs) {
  const id = messageId(params)
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const intent = String(formData.get('intent') ?? '')
  switch (intent) {
    case 'retry':
    case 'cancel':
      return changeMailMessage(api, id, intent, responseHeaders)
    default:
      throw data('Unknown intent', { status: 400 })
  }
}

export default function MailMessage({ loaderData }: Route.ComponentProps) {
  const { message, templateName } = loaderData
  const actionData = useActionData<typeof action>() as ReportingActionData | undefined
  const locale = useLocale()
  useLiveRevalidation((change) => change.entityType === 'MailOutbox' && change.entityId === message.id)
  return (
    <>
      <PageHeader
        title={message.subject}
        description={`To ${message.to}`}
        actions={
          <Link to="/admin/mail-outbox" className="text-sm text-primary-strong underline underline-offset-2">
            All messages
          </Link>
        }
      />
      {actionData?.notice ? (
        <Banner tone="critical" title="That did not work" correlationId={actionData.notice.correlationId} className="mb-6">
          {actionData.notice.message}
        </Banner>
      ) : null}
      <div className="grid gap-6 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <div className="flex min-w-0 flex-col gap-6">
          <Section title="Plain text">
            <Card className="p-4">
              <pre className="font-sans text-sm break-words whitespace-pre-wrap text-text">{message.textBody}</pre>
            </Card>
          </Section>
          <HtmlPart message={message} />
        </div>
        <div className="flex flex-col gap-6">
          <Card className="p-5">
            <h2 className="mb-3 text-lg font-semibold">Delivery</h2>
            <Facts message={message} templateName={templateName} locale={locale} />
            {message.lastError && message.status !== 'sent' ? (
              <p className="mt-4 rounded-md border border-critical/30 bg-critical-surface p-3 text-sm break-words text-critical">
                <span className="font-medium">Last error: </span>
                {message.lastError}
              </p>
            ) : null}
          </Card>
          <Actions message={message} />
        </div>
      </div>
    </>
  )
}

function Facts({ message, templateName, locale }: { message: MailMessageDetail; templateName: string; locale: string }) {
  const rows: [string, string | null][] = [
    ['Template', templateName],
    ['Attempts', String(message.attempts)],
    ['Created', formatDateTime(message.createdAtUtc, locale)],
    ['Next attempt', message.status === 'queued' ? formatDateTime(message.nextAttemptAtUtc, locale) : null],
    ['Sent', message.sentAtUtc ? formatDateTime(message.sentAtUtc, locale) : null],
    ['Last failure', message.lastFailureUtc ? formatDateTime(message.lastFailureUtc, locale) : null],
    ['Cancelled', message.cancelledAtUtc ? formatDateTime(message.cancelledAtUtc, locale) : null],
    ['Transport', message.transport],
  ]
  return (
    <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1.5 text-sm">
      <dt className="text-muted">Status</dt>
      <dd>
        <Badge tone={MAIL_STATUS_TONES[message.status]}>{MAIL_STATUS_LABELS[message.status]}</Badge>
        {message.withoutOrganisation ? <Badge>No organisation: asked from the sign-in page</Badge> : null}
      </dd>
      {rows.map(([label, value]) =>
        value === null ? null : (
          <div key={label} className="contents">
            <dt className="text-muted">{label}</dt>
            <dd className="break-words">{value}</dd>
          </div>
        ),
      )}
    </dl>
  )
}

/**
 * The HTML part in a sandboxed frame: served by the API under its own CSP (no script, nothing
 * fetched), and the frame's `sandbox` gives it an opaque origin. The source is there too, escaped.
 */
function HtmlPart({ message }: { message: MailMessageDetail }) {
  if (message.htmlBody === null) {
    return (
      <Section title="HTML">
        <p className="text-sm text-muted">This message has no HTML part; it was sent as plain text only.</p>
      </Section>
    )
  }
  return (
    <Section title="HTML">
      <div className="flex flex-col gap-3">
        <iframe
          title="The message’s HTML part"
          src={`/api/admin/mail-outbox/${message.id}/html`}
          sandbox=""
          referrerPolicy="no-referrer"
          loading="lazy"
          className="h-[28rem] w-full rounded-lg border border-border bg-white"
        />
        <details>
          <summary className="cursor-pointer text-sm text-primary-strong underline underline-offset-2">HTML source</summary>
          <pre className="mt-2 max-h-96 overflow-auto rounded-md border border-border bg-surface-muted p-3 text-xs break-words whitespace-pre-wrap">{message.htmlBody}</pre>
        </details>
      </div>
    </Section>
  )
}

function Actions({ message }: { message: MailMessageDetail }) {
  const canRetry = MAIL_RETRYABLE.includes(message.status)
  const canCancel = MAIL_CANCELLABLE.includes(message.status)
  if (!canRetry && !canCancel) return null
  return (
    <Card className="flex flex-col gap-4 p-5">
      <h2 className="text-lg font-semibold">Actions</h2>
      {canRetry ? (
        <Form method="post" className="flex flex-col gap-2">
          <CsrfInput />
          <p className="text-sm text-muted">
            {message.status === 'dead'
              ? 'Queue it again with a fresh set of attempts, once the cause is fixed.'
              : 'Try it at the next delivery pass instead of waiting for its back-off.'}
          </p>
          <div>
            <SubmitButton intent="retry" pendingLabel="Queuing…">
              Send again now
            </SubmitButton>
          </div>
        </Form>
      ) : null}
      {canCancel ? (
        <ConfirmDialog triggerLabel="Cancel message…" title={`Cancel the message to ${message.to}?`} confirmLabel="Yes, cancel message" pendingLabel="Cancelling…" intent="cancel">
          It will never be sent. To send it after all, the action that sends it has to run again.
        </ConfirmDialog>
      ) : null}
    </Card>
  )
}

export function meta({ data: loaded }: Route.MetaArgs) {
  return [{ title: loaded ? `${loaded.message.subject} · Mail outbox · Site Portal` : 'Message · Mail outbox · Site Portal' }]
}
