import { Form } from 'react-router'
import { Banner } from '~/components/ui/banner'
import { CsrfInput } from '~/components/ui/csrf-input'
import { SubmitButton } from '~/components/ui/submit-button'
import { CHAIN_BREAK_LABELS, type ChainVerification } from '~/lib/admin/audit'
import { formatDateTime, formatNumber } from '~/lib/format'

type Notice = { message: string; correlationId: string | null }

/**
 * "Verify chain": a form posted to the page (so it works without JavaScript), whose action asks
 * the backend to walk the chain; the answer is shown here.
 */
export function AuditVerify({ verification, notice, locale }: { verification: ChainVerification | undefined; notice: Notice | undefined; locale: string }) {
  return (
    <div className="flex flex-col gap-3">
      <Form method="post" className="flex flex-wrap items-center gap-3">
        <CsrfInput />
        <SubmitButton intent="verify" variant="secondary" pendingLabel="Verifying…">
          Verify chain
        </SubmitButton>
      </Form>
      {notice ? (
        <Banner tone="critical" title="The chain could not be checked" correlationId={notice.correlationId}>
          {notice.message}
        </Banner>
      ) : null}
      {verification ? <VerificationResult verification={verification} locale={locale} /> : null}
    </div>
  )
}

function VerificationResult({ verification, locale }: { verification: ChainVerification; locale: string }) {
  const when = formatDateTime(verification.verifiedAtUtc, locale)
  const checked = `${formatNumber(verification.checked, locale)} ${verification.checked === 1 ? 'entry' : 'entries'} checked`
  if (verification.ok) {
    return (
      <Banner tone="success" title={`Chain intact: ${checked}`}>
        Every entry still has the hash it was written with and links to the one before it, up to the chain head. Checked {when}.
      </Banner>
    )
  }
  const broken = verification.firstBroken
  return (
    <Banner tone="critical" title="Chain broken">
      {broken ? (
        <p>
          First broken link: entry {formatNumber(broken.chainSeq, locale)} — {CHAIN_BREAK_LABELS[broken.reason]} ({broken.reason}).
          {broken.detail ? ` ${broken.detail}` : null}
          {broken.id ? (
            <>
              {' '}
              Entry id <code className="font-mono break-all">{broken.id}</code>.
            </>
          ) : null}
        </p>
      ) : null}
      <p className="mt-1">
        {checked} before the break. Checked {when}.
      </p>
    </Banner>
  )
}
