import { getFormProps, getTextareaProps, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { data, Form, Link, redirect, useActionData, useLocation } from 'react-router'
import { fileSizeText } from '~/components/documents/document-badges'
import { purposeLabel, RecipientStatusBadge } from '~/components/doc-control/transmittal-labels'
import { formFailure, invalidForm, noticeFailure, resultFor, type ReportingActionData } from '~/components/reporting/report-action'
import { Banner } from '~/components/ui/banner'
import { buttonClasses } from '~/components/ui/button'
import { Card } from '~/components/ui/card'
import { CsrfInput } from '~/components/ui/csrf-input'
import { FormError } from '~/components/ui/form-error'
import { SubmitButton } from '~/components/ui/submit-button'
import { TextareaField } from '~/components/ui/textarea-field'
import { FlashToast } from '~/components/ui/toast'
import { createServerApi } from '~/lib/api.server'
import type { SharedTransmittal } from '~/lib/doc-control/types'
import { setFlash } from '~/lib/flash.server'
import { formatDate, formatDateTime } from '~/lib/format'
import { failureStatus, formMessageFor } from '~/lib/forms'
import { TransmittalRespondSchema } from '~/lib/schemas/transmittals'
import { useLocale } from '~/root'
import type { Route } from './+types/shared-transmittal'

/**
 * An outside contact's transmittal (issue 32, docs/decisions/024-transmittal-links.md):
 * `/shared/transmittals/{token}`, the link their mail holds. No account and no session: the signed
 * token is all, and it reaches this transmittal alone. Read-only: its documents and revisions, a
 * download of each file and of the ZIP, "Acknowledge receipt", and a reply with a comment. Every
 * load is a recorded view; a link that does not work (expired, revoked, mistyped) says so.
 */

const pagePath = (token: string) => `/shared/transmittals/${encodeURIComponent(token)}`

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  const result = await api.GET('/api/shared/transmittals/{token}', { path: { token: params.token } })
  if (!result.ok) {
    if (result.error.status === 404) return data({ shared: null }, { status: 404, headers: responseHeaders })
    throw data({ correlationId: result.error.correlationId ?? null }, { status: failureStatus(result.error), statusText: formMessageFor(result.error) })
  }
  return data({ shared: result.data }, { headers: responseHeaders })
}

export async function action({ request, context, params }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const back = pagePath(params.token)
  switch (String(formData.get('intent') ?? '')) {
    case 'acknowledge': {
      const result = await api.POST('/api/shared/transmittals/{token}/acknowledge', { path: { token: params.token }, idempotencyKey: true })
      if (!result.ok) return noticeFailure('acknowledge', result.error, responseHeaders)
      await setFlash(responseHeaders, { tone: 'success', message: `You acknowledged receipt of ${result.data.number}; ${result.data.senderName ?? 'the sender'} sees it.` })
      throw redirect(back, { headers: responseHeaders })
    }
    case 'respond': {
      const submission = parseWithZod(formData, { schema: TransmittalRespondSchema })
      if (submission.status !== 'success') return invalidForm('respond', submission)
      const result = await api.POST('/api/shared/transmittals/{token}/respond', { path: { token: params.token }, body: { response: submission.value.response }, idempotencyKey: true })
      if (!result.ok) return formFailure('respond', submission, result.error, responseHeaders)
      await setFlash(responseHeaders, { tone: 'success', message: `Your reply to ${result.data.number} was sent to ${result.data.senderName ?? 'the sender'}.` })
      throw redirect(back, { headers: responseHeaders })
    }
    case 'package': {
      const result = await api.POST('/api/shared/transmittals/{token}/package', { path: { token: params.token }, idempotencyKey: true })
      if (!result.ok) return noticeFailure('package', result.error, responseHeaders)
      await setFlash(responseHeaders, { tone: 'success', message: result.data.package?.status === 'ready' ? 'The ZIP is ready.' : 'The ZIP is being prepared.' })
      throw redirect(back, { headers: responseHeaders })
    }
    default:
      throw data('Unknown intent', { status: 400 })
  }
}

function Frame({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <div className="flex min-h-screen flex-col items-center px-4 py-8 sm:py-12">
      <p className="mb-6 text-lg font-semibold text-text">Site Portal</p>
      <main id="main" tabIndex={-1} className="flex w-full max-w-3xl min-w-0 flex-col gap-6">
        <FlashToast />
        <h1 className="text-2xl font-semibold break-words text-text">{title}</h1>
        {children}
      </main>
    </div>
  )
}

export default function SharedTransmittalPage({ loaderData }: Route.ComponentProps) {
  const shared = loaderData.shared as SharedTransmittal | null
  const actionData = useActionData<typeof action>() as ReportingActionData | undefined
  const locale = useLocale()
  const location = useLocation()
  if (!shared) {
    return (
      <Frame title="This link does not work">
        <Card>
          <p className="text-sm text-text">It may have expired, the sender may have withdrawn it, or it was copied only in part.</p>
          <p className="mt-3 text-sm text-muted">Ask the person who sent you the transmittal to send it again.</p>
        </Card>
      </Frame>
    )
  }
  const { recipient } = shared
  const received = recipient.acknowledgedAt !== null
  const pkg = shared.package
  const superseded = shared.revisions.filter((r) => r.superseded)
  return (
    <Frame title={`Transmittal ${shared.number}`}>
      {actionData?.notice ? (
        <Banner tone="critical" title="That did not work" correlationId={actionData.notice.correlationId}>
          {actionData.notice.message}
        </Banner>
      ) : null}
      <Card>
        <p className="mb-4 text-sm text-muted">
          {shared.senderName ?? 'Someone'} of {shared.organisationName} sent this to {recipient.name}
          {recipient.company ? ` (${recipient.company})` : ''} for the project {shared.projectTitle}. This page is yours alone; its link works until{' '}
          {formatDateTime(recipient.expiresAt, locale)}.
        </p>
        <dl className="grid gap-x-6 gap-y-3 text-sm sm:grid-cols-[max-content_1fr]">
          <dt className="font-medium text-muted">Subject</dt>
          <dd className="break-words">{shared.subject}</dd>
          <dt className="font-medium text-muted">Purpose</dt>
          <dd>{purposeLabel(shared.purpose)}</dd>
          <dt className="font-medium text-muted">Sent</dt>
          <dd>{shared.sentAt ? formatDateTime(shared.sentAt, locale) : '–'}</dd>
          <dt className="font-medium text-muted">Response due</dt>
          <dd>{shared.responseDueDate ? formatDate(shared.responseDueDate, locale) : 'No response asked for'}</dd>
          <dt className="font-medium text-muted">Message</dt>
          <dd className="break-words whitespace-pre-line">{shared.message || <span className="text-muted">No message</span>}</dd>
          <dt className="font-medium text-muted">Your receipt</dt>
          <dd>
            <RecipientStatusBadge status={recipient.status} />
            {recipient.acknowledgedAt ? <span className="ml-2">Acknowledged at {formatDateTime(recipient.acknowledgedAt, locale)}</span> : null}
          </dd>
        </dl>
      </Card>

      {superseded.length > 0 ? (
        <Banner tone="warning" title={superseded.length === 1 ? 'A document has a newer revision' : 'Documents have newer revisions'}>
          <ul aria-label="Superseded revisions" className="flex flex-col gap-1">
            {superseded.map((r) => (
              <li key={r.revisionId} className="break-words">
                {r.number} {r.code} is superseded
                {r.currentRevision ? ` by ${r.currentRevision.code} (${r.currentRevision.status}), issued ${formatDate(r.currentRevision.issuedAt, locale)}` : ''}.
              </li>
            ))}
          </ul>
          <p className="mt-2">
            This transmittal keeps what was sent. The new revision is not part of it: it reaches you by a new transmittal. Ask {shared.senderName ?? 'the sender'} of{' '}
            {shared.organisationName} if you need it.
          </p>
        </Banner>
      ) : null}

      <section aria-labelledby="documents-heading" className="flex flex-col gap-3">
        <h2 id="documents-heading" className="text-lg font-semibold">
          Documents ({shared.revisions.length})
        </h2>
        <ul aria-label="Documents" className="flex flex-col divide-y divide-border rounded-md border border-border bg-surface">
          {shared.revisions.map((r) => (
            <li key={r.revisionId} className="flex flex-wrap items-center justify-between gap-3 px-4 py-3">
              <span className="flex min-w-0 flex-col">
                <span className="font-mono text-sm break-all">
                  {r.number} {r.code}
                </span>
                <span className="text-sm break-words">{r.title}</span>
                <span className="text-xs text-muted">
                  Suitability {r.status} · {fileSizeText(r.sizeBytes)}
                  {r.superseded ? ` · superseded${r.currentRevision ? ` by ${r.currentRevision.code}` : ''}` : ''}
                </span>
              </span>
              {/* A file download, not a screen: a plain link the browser saves. */}
              <a href={r.downloadUrl} download className={buttonClasses({ variant: 'secondary', size: 'sm' })} aria-label={`Download ${r.number} ${r.code}`}>
                Download
              </a>
            </li>
          ))}
        </ul>
      </section>

      <section aria-labelledby="zip-heading" className="flex flex-col gap-3">
        <h2 id="zip-heading" className="text-lg font-semibold">
          All files as one ZIP
        </h2>
        {pkg?.status === 'ready' && pkg.downloadUrl ? (
          <p>
            <a href={pkg.downloadUrl} download className={buttonClasses({ variant: 'primary' })}>
              Download ZIP
            </a>
          </p>
        ) : pkg && (pkg.status === 'queued' || pkg.status === 'running') ? (
          <p className="flex flex-wrap items-center gap-3 text-sm">
            <span>The ZIP is being prepared ({pkg.percent}%).</span>
            <Link to={`${location.pathname}${location.search}`} className={buttonClasses({ variant: 'secondary', size: 'sm' })}>
              Refresh
            </Link>
          </p>
        ) : (
          <Form method="post">
            <CsrfInput />
            {pkg?.status === 'failed' ? <p className="mb-2 text-sm text-critical">Preparing the ZIP failed. Try again.</p> : null}
            <SubmitButton intent="package" variant="secondary" pendingLabel="Starting…">
              Prepare ZIP
            </SubmitButton>
          </Form>
        )}
      </section>

      <section aria-labelledby="receipt-heading" className="flex flex-col gap-3">
        <h2 id="receipt-heading" className="text-lg font-semibold">
          Receipt and reply
        </h2>
        {!received ? (
          <Form method="post">
            <CsrfInput />
            <SubmitButton intent="acknowledge" pendingLabel="Acknowledging…">
              Acknowledge receipt
            </SubmitButton>
          </Form>
        ) : null}
        {recipient.respondedAt ? (
          <Card>
            <p className="text-sm text-muted">Your reply, {formatDateTime(recipient.respondedAt, locale)}:</p>
            <p className="mt-1 text-sm break-words whitespace-pre-line">{recipient.response}</p>
          </Card>
        ) : (
          <ReplyForm lastResult={resultFor(actionData, 'respond')} />
        )}
      </section>
    </Frame>
  )
}

function ReplyForm({ lastResult }: { lastResult: ReturnType<typeof resultFor> }) {
  const [form, fields] = useForm({
    id: 'shared-reply',
    lastResult,
    defaultNoValidate: false,
    constraint: getZodConstraint(TransmittalRespondSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: TransmittalRespondSchema }),
  })
  return (
    <Form method="post" {...getFormProps(form)} aria-label="Reply" className="flex flex-col gap-3">
      <CsrfInput />
      <FormError id={form.errorId} errors={form.errors} />
      <TextareaField label="Reply with a comment" help="Your reply acknowledges receipt too." textareaProps={{ ...getTextareaProps(fields.response), rows: 4 }} errors={fields.response.errors} />
      <div>
        <SubmitButton intent="respond" variant="secondary" pendingLabel="Sending…">
          Send reply
        </SubmitButton>
      </div>
    </Form>
  )
}

export function meta({ data: loaderData }: Route.MetaArgs) {
  const shared = (loaderData as { shared: SharedTransmittal | null } | undefined)?.shared
  return [{ title: shared ? `Transmittal ${shared.number} · Site Portal` : 'Link does not work · Site Portal' }, { name: 'robots', content: 'noindex' }]
}
