import { Form } from 'react-router'
import { Banner } from '~/components/ui/banner'
import { Card } from '~/components/ui/card'
import { CheckboxField } from '~/components/ui/checkbox-field'
import { CsrfInput } from '~/components/ui/csrf-input'
import { EmptyState } from '~/components/ui/empty-state'
import { Section } from '~/components/ui/section'
import { SubmitButton } from '~/components/ui/submit-button'
import type { Transmittal } from '~/lib/doc-control/types'
import { formatDate } from '~/lib/format'
import { purposeLabel } from './transmittal-labels'
import { RevisionTable } from './transmittal-revision-table'
import { STEP_LABELS, type ScreenStep } from './wizard-steps'

/**
 * Step 4: everything that will go, in one place, each part with a way back to change it; then
 * Send. What the API still finds missing comes back as the page's banner.
 */
export function WizardReviewStep({ transmittal, locale, purposeWarnings }: { transmittal: Transmittal; locale: string; purposeWarnings?: readonly string[] | undefined }) {
  const t = transmittal
  return (
    <div className="flex flex-col gap-8">
      <Section title="Purpose and message" actions={<ChangeButton to="message" />}>
        <Card>
          <dl className="grid gap-x-6 gap-y-3 text-sm sm:grid-cols-[max-content_1fr]">
            <dt className="font-medium text-muted">Purpose</dt>
            <dd>{purposeLabel(t.purpose)}</dd>
            <dt className="font-medium text-muted">Subject</dt>
            <dd className="break-words">{t.subject || <span className="text-critical">No subject yet</span>}</dd>
            <dt className="font-medium text-muted">Message</dt>
            <dd className="break-words whitespace-pre-line">{t.message || <span className="text-muted">No message</span>}</dd>
            <dt className="font-medium text-muted">Response due</dt>
            <dd>{t.responseDueDate ? formatDate(t.responseDueDate, locale) : <span className="text-muted">No response asked for</span>}</dd>
          </dl>
        </Card>
      </Section>
      <Section title={`Revisions (${t.revisions.length})`} actions={<ChangeButton to="revisions" />}>
        <RevisionTable
          caption="Revisions to send"
          revisions={t.revisions}
          emptyState={
            <EmptyState heading="No revisions chosen." headingLevel={3}>
              Choose at least one before sending.
            </EmptyState>
          }
        />
      </Section>
      <Section title={`Recipients (${t.recipients.length + t.outsideRecipients.length})`} actions={<ChangeButton to="recipients" />}>
        {t.recipients.length + t.outsideRecipients.length === 0 ? (
          <EmptyState heading="No recipients chosen." headingLevel={3}>
            Choose at least one person or party before sending.
          </EmptyState>
        ) : (
          <ul aria-label="Recipients" className="grid gap-2 sm:grid-cols-2">
            {t.recipients.map((recipient) => (
              <li key={recipient.id} className="rounded-md border border-border bg-surface px-3 py-2 text-sm">
                <span className="block font-medium text-text">{recipient.displayName}</span>
                <span className="block text-xs break-all text-muted">{recipient.email}</span>
              </li>
            ))}
            {t.outsideRecipients.map((recipient) => (
              <li key={recipient.id} className="rounded-md border border-border bg-surface px-3 py-2 text-sm">
                <span className="block font-medium text-text">
                  {recipient.name}
                  {recipient.company ? <span className="font-normal text-muted">, {recipient.company}</span> : null}
                </span>
                <span className="block text-xs break-all text-muted">{recipient.email} · outside contact, gets a link by mail</span>
              </li>
            ))}
          </ul>
        )}
      </Section>
      <Form method="post" aria-label="Send" className="flex flex-wrap items-center gap-3 border-t border-border pt-4">
        <CsrfInput />
        <input type="hidden" name="step" value="review" />
        {purposeWarnings && purposeWarnings.length > 0 ? (
          <div className="flex w-full flex-col gap-3">
            <Banner tone="warning" title={`Not suitable ${purposeLabel(t.purpose).toLowerCase()}?`}>
              <ul className="list-disc pl-5">
                {purposeWarnings.map((warning) => (
                  <li key={warning} className="break-words">
                    {warning}
                  </li>
                ))}
              </ul>
            </Banner>
            <CheckboxField
              label={`Send it ${purposeLabel(t.purpose).toLowerCase()} anyway`}
              help="The warning and your confirmation are kept on the transmittal. Or change the purpose or the revisions."
              inputProps={{ name: 'confirmPurpose', value: 'yes', id: 'confirm-purpose' }}
            />
          </div>
        ) : null}
        <SubmitButton intent="send" pendingLabel="Sending…">
          Send transmittal
        </SubmitButton>
        <SubmitButton intent="back" variant="secondary" pendingLabel="Going back…">
          Back: {STEP_LABELS.message}
        </SubmitButton>
      </Form>
    </div>
  )
}

const CHANGE_LABELS: Record<ScreenStep, string> = { revisions: 'Change revisions', recipients: 'Change recipients', message: 'Change purpose and message', review: 'Review' }

function ChangeButton({ to }: { to: ScreenStep }) {
  return (
    <Form method="post">
      <CsrfInput />
      <input type="hidden" name="to" value={to} />
      <SubmitButton intent="goto" variant="secondary" size="sm" aria-label={CHANGE_LABELS[to]}>
        Change
      </SubmitButton>
    </Form>
  )
}
