import { Badge } from '~/components/ui/badge'
import { cx } from '~/components/ui/class-names'
import { Field } from '~/components/ui/field'
import { SubmitButton } from '~/components/ui/submit-button'
import type { ConfigTestKind, ConfigTestResult } from '~/lib/admin/config'
import { formatDateTime, formatNumber } from '~/lib/format'

/** The test buttons' labels: what each kind checks. */
export const TEST_LABELS: Record<ConfigTestKind, { button: string; what: string }> = {
  smtp: { button: 'Test mail server', what: 'Connects to the mail server with the values above, signs in and sends a test mail.' },
  oidc: { button: 'Test identity provider', what: 'Fetches the provider’s discovery document from the issuer above.' },
  redis: { button: 'Test Redis', what: 'Pings the Redis server the realtime backplane uses.' },
  storage: { button: 'Test storage', what: 'Writes a small file to the file store, reads it back and removes it.' },
}

export const TO_EMAIL_FIELD = 'toEmail'

/**
 * The category's tests, inside its form: each button sends the form's current values, saved or
 * not (intent `test:{kind}`), and the result shows beside it; the last one survives a reload.
 */
export function ConfigTests({
  kinds,
  results,
  toEmail,
  toEmailErrors,
  updatedAtUtc,
  locale,
}: {
  kinds: readonly ConfigTestKind[]
  results: Partial<Record<ConfigTestKind, ConfigTestResult>>
  toEmail: string
  toEmailErrors?: string[] | undefined
  /** When the category was last saved: a result older than that tested other values. */
  updatedAtUtc: string | null
  locale: string
}) {
  if (kinds.length === 0) return null
  return (
    <div className="flex flex-col gap-6 border-t border-border pt-6">
      <div>
        <h2 className="text-lg font-semibold text-text">Test</h2>
        <p className="mt-1 text-sm text-muted">A test uses the values in the form as they are now, saved or not. It changes nothing.</p>
      </div>
      {kinds.map((kind) => (
        <div key={kind} className="flex flex-col gap-3">
          <p className="text-sm text-muted">{TEST_LABELS[kind].what}</p>
          {kind === 'smtp' ? (
            <Field
              label="Send test to"
              help="The address that gets the test mail."
              errors={toEmailErrors}
              className="max-w-md"
              inputProps={{ id: 'config-toEmail', name: TO_EMAIL_FIELD, type: 'email', autoComplete: 'email', spellCheck: false, defaultValue: toEmail }}
            />
          ) : null}
          <SubmitButton intent={`test:${kind}`} variant="secondary" pendingLabel="Testing…" className="self-start">
            {TEST_LABELS[kind].button}
          </SubmitButton>
          <TestResult result={results[kind]} updatedAtUtc={updatedAtUtc} locale={locale} label={TEST_LABELS[kind].button} />
        </div>
      ))}
    </div>
  )
}

/** A test's outcome: passed or failed, its message in plain words, and the technical detail. */
function TestResult({ result, updatedAtUtc, locale, label }: { result: ConfigTestResult | undefined; updatedAtUtc: string | null; locale: string; label: string }) {
  const stale = result && updatedAtUtc !== null && result.testedAtUtc < updatedAtUtc
  return (
    <div role="status" aria-live="polite" aria-label={`${label}: result`}>
      {result ? (
        <div className={cx('rounded-md border-l-4 px-4 py-3 text-sm text-text', result.ok ? 'border-success bg-success-surface' : 'border-critical bg-critical-surface')}>
          <p className="flex flex-wrap items-center gap-2">
            <Badge tone={result.ok ? 'success' : 'critical'}>{result.ok ? 'Test passed' : 'Test failed'}</Badge>
            <span className="font-medium">{result.message}</span>
          </p>
          {result.detail ? (
            <p className="mt-2 text-muted">
              Detail: <code className="font-mono break-all">{result.detail}</code>
            </p>
          ) : null}
          <p className="mt-2 text-xs text-muted">
            Tested {formatDateTime(result.testedAtUtc, locale)}
            {result.testedBy ? ` by ${result.testedBy}` : ''} in {formatNumber(result.durationMs, locale)} ms.
            {stale ? ' The settings were saved again since.' : ''}
          </p>
        </div>
      ) : (
        <p className="text-sm text-muted">Not tested yet.</p>
      )}
    </div>
  )
}
