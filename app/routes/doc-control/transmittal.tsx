import { data, Link, useActionData } from 'react-router'
import { PackageProgress } from '~/components/doc-control/package-progress'
import { purposeLabel, TransmittalStatusBadge } from '~/components/doc-control/transmittal-labels'
import { transmittalsPage } from '~/components/doc-control/transmittal-paths'
import { RecipientActions } from '~/components/doc-control/transmittal-recipient-actions'
import { TransmittalOutsideRecipients } from '~/components/doc-control/transmittal-outside-recipients'
import { TransmittalRecipients } from '~/components/doc-control/transmittal-recipients'
import { RevisionTable } from '~/components/doc-control/transmittal-revision-table'
import { resultFor, type ReportingActionData } from '~/components/reporting/report-action'
import { Banner } from '~/components/ui/banner'
import { buttonClasses } from '~/components/ui/button'
import { Card } from '~/components/ui/card'
import { ConfirmDialog } from '~/components/ui/confirm-dialog'
import { EmptyState } from '~/components/ui/empty-state'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { useLiveRevalidation } from '~/islands/realtime/use-live-revalidation'
import { createServerApi } from '~/lib/api.server'
import type { Transmittal } from '~/lib/doc-control/types'
import { formatDate, formatDateTime } from '~/lib/format'
import { useLocale, useShellSession } from '~/root'
import type { Route } from './+types/transmittal'
import { acknowledge, close, loadTransmittal, preparePackage, respond, revokeLink, unknownIntent } from './transmittal.server'

/**
 * One transmittal (docs/doc-control.md "Transmittals"): what was sent, why and to whom, how far
 * each recipient has got, the sender's and the recipient's actions, and its ZIP.
 */
export async function loader({ request, context, params }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  const transmittal = await loadTransmittal(api, params.transmittalId, responseHeaders)
  return data({ transmittal }, { headers: responseHeaders })
}

export async function action({ request, context, params }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const transmittal = await loadTransmittal(api, params.transmittalId, responseHeaders)
  switch (String(formData.get('intent') ?? '')) {
    case 'acknowledge':
      return acknowledge(api, transmittal, responseHeaders)
    case 'respond':
      return respond(api, transmittal, formData, responseHeaders)
    case 'close':
      return close(api, transmittal, responseHeaders)
    case 'package':
      return preparePackage(api, transmittal, responseHeaders)
    case 'revoke-link':
      return revokeLink(api, transmittal, formData, responseHeaders)
    default:
      return unknownIntent()
  }
}

const CLOSABLE: ReadonlyArray<Transmittal['status']> = ['sent', 'acknowledged', 'responded']

export default function TransmittalPage({ loaderData }: Route.ComponentProps) {
  const t = loaderData.transmittal as Transmittal
  const actionData = useActionData<typeof action>() as ReportingActionData | undefined
  const locale = useLocale()
  const userId = useShellSession()?.userId
  const sender = userId !== undefined && (t.sentBy?.id === userId || t.createdBy?.id === userId)
  // A recipient opening, downloading, acknowledging or responding shows on the sender's screen as it happens.
  useLiveRevalidation((change) => change.entityType === 'Transmittal' && change.entityId === t.id)
  return (
    <>
      <p className="mb-2 text-sm">
        <Link to={transmittalsPage(t.projectId)} className="text-primary-strong underline underline-offset-2">
          ← Transmittals
        </Link>
      </p>
      <PageHeader
        title={<span className="font-mono break-all">{t.number}</span>}
        description={t.subject}
        actions={
          <>
            {/* A file download, not a screen: a plain link the browser saves. */}
            <a href={`/api/transmittals/${encodeURIComponent(t.id)}/cover-sheet`} download className={buttonClasses({ variant: 'secondary' })}>
              Cover sheet PDF
            </a>
            {sender && CLOSABLE.includes(t.status) ? (
              <ConfirmDialog triggerLabel="Close…" title={`Close ${t.number}?`} confirmLabel="Yes, close transmittal" pendingLabel="Closing…" intent="close" tone="primary">
                It is marked closed: nothing more is expected from its recipients. Its record stays as it is.
              </ConfirmDialog>
            ) : null}
          </>
        }
      />
      {actionData?.notice ? (
        <Banner tone="critical" title="That did not work" correlationId={actionData.notice.correlationId} className="mb-6">
          {actionData.notice.message}
        </Banner>
      ) : null}
      <div className="grid gap-8 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <div className="flex min-w-0 flex-col gap-8">
          <Card>
            <h2 className="sr-only">Details</h2>
            <dl className="grid gap-x-6 gap-y-3 text-sm sm:grid-cols-[max-content_1fr]">
              <dt className="font-medium text-muted">Status</dt>
              <dd>
                <TransmittalStatusBadge status={t.status} />
              </dd>
              <dt className="font-medium text-muted">Purpose</dt>
              <dd>{purposeLabel(t.purpose)}</dd>
              {t.purposeCheck ? (
                <>
                  <dt className="font-medium text-muted">Purpose warning</dt>
                  <dd>
                    <ul aria-label="Purpose warning" className="list-disc pl-5 break-words">
                      {t.purposeCheck.warnings.map((warning) => (
                        <li key={warning}>{warning}</li>
                      ))}
                    </ul>
                    <p className="mt-1 text-muted">
                      Sent anyway: confirmed{t.purposeCheck.confirmedBy ? ` by ${t.purposeCheck.confirmedBy.displayName}` : ''}
                      {t.purposeCheck.confirmedAtUtc ? ` on ${formatDateTime(t.purposeCheck.confirmedAtUtc, locale)}` : ''}.
                    </p>
                  </dd>
                </>
              ) : null}
              <dt className="font-medium text-muted">Sent</dt>
              <dd>{t.sentAt ? `${formatDateTime(t.sentAt, locale)}${t.sentBy ? ` by ${t.sentBy.displayName}` : ''}` : 'Not sent'}</dd>
              <dt className="font-medium text-muted">Response due</dt>
              <dd>{t.responseDueDate ? formatDate(t.responseDueDate, locale) : 'No response asked for'}</dd>
              <dt className="font-medium text-muted">Message</dt>
              <dd className="break-words whitespace-pre-line">{t.message || <span className="text-muted">No message</span>}</dd>
            </dl>
          </Card>
          <Section title={`Revisions (${t.revisions.length})`}>
            <RevisionTable caption="Revisions sent" revisions={t.revisions} emptyState={<EmptyState heading="No revisions." headingLevel={3} />} />
          </Section>
          <Section title={`Recipients (${t.recipients.length})`}>
            <TransmittalRecipients recipients={t.recipients} locale={locale} sender={sender} />
          </Section>
          {t.outsideRecipients.length > 0 ? (
            <Section title={`Outside contacts (${t.outsideRecipients.length})`} description="People of other firms, who open it by a link in their mail without an account.">
              <TransmittalOutsideRecipients recipients={t.outsideRecipients} revisions={t.revisions} locale={locale} canRevoke={t.status !== 'draft'} />
            </Section>
          ) : null}
        </div>
        <div className="flex min-w-0 flex-col gap-8">
          {t.mine ? (
            <Section title="Your part">
              <RecipientActions transmittal={t} mine={t.mine} locale={locale} lastResult={resultFor(actionData, 'respond')} />
            </Section>
          ) : null}
          <Section title="ZIP of the files">
            <PackageProgress transmittalId={t.id} pkg={t.package} locale={locale} />
          </Section>
        </div>
      </div>
    </>
  )
}

export function meta({ data: loaderData }: Route.MetaArgs) {
  return [{ title: loaderData ? `${loaderData.transmittal.number} ${loaderData.transmittal.subject} · Site Portal` : 'Transmittal · Site Portal' }]
}
