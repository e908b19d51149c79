import { getFormProps, getInputProps, type SubmissionResult, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import { Badge } from '~/components/ui/badge'
import { Card } from '~/components/ui/card'
import { CsrfInput } from '~/components/ui/csrf-input'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { SubmitButton } from '~/components/ui/submit-button'
import { MfaCodeSchema } from '~/lib/schemas/settings'
import type { MfaEnrollment, UserSettings } from '~/lib/settings/settings'
import { QrCode } from '~/components/ui/qr-code'

type Props = {
  mfa: UserSettings['mfa']
  /** The secret of a set-up in progress, from the action that started it. */
  enrollment: (MfaEnrollment & { qrSvg: string }) | undefined
  confirmResult: SubmissionResult<string[]> | undefined
  removeResult: SubmissionResult<string[]> | undefined
}

/**
 * Two-factor authentication: set up an authenticator app (the secret and its otpauth link shown as
 * text, to type or paste into the app), confirm with its first code, remove with the current code.
 */
export function MfaCard({ mfa, enrollment, confirmResult, removeResult }: Props) {
  return (
    <Card className="p-5" role="region" aria-label="Two-factor authentication">
      <div className="mb-4 flex flex-wrap items-center gap-3">
        <h2 className="text-lg font-semibold">Two-factor authentication</h2>
        {mfa.enabled ? <Badge tone="success">On</Badge> : <Badge>Off</Badge>}
      </div>
      {mfa.enabled ? (
        <RemoveMfa enforced={mfa.enforced} lastResult={removeResult} />
      ) : enrollment ? (
        <ConfirmMfa enrollment={enrollment} lastResult={confirmResult} />
      ) : (
        <StartMfa pending={mfa.pending} />
      )}
    </Card>
  )
}

function StartMfa({ pending }: { pending: boolean }) {
  return (
    <>
      <p className="mb-4 text-sm">
        {pending
          ? 'You started setting up an authenticator app but did not confirm it with a code yet.'
          : 'Protect your account with a code from an authenticator app (such as Google Authenticator, Microsoft Authenticator or 1Password) as well as your password.'}
      </p>
      <div className="flex flex-wrap gap-2">
        <Form method="post">
          <CsrfInput />
          <SubmitButton intent="mfa-start" pendingLabel="Starting…">
            {pending ? 'Continue setting up' : 'Set up two-factor authentication'}
          </SubmitButton>
        </Form>
        {pending ? (
          <Form method="post">
            <CsrfInput />
            <SubmitButton intent="mfa-cancel" variant="secondary" pendingLabel="Cancelling…">
              Cancel set-up
            </SubmitButton>
          </Form>
        ) : null}
      </div>
    </>
  )
}

function ConfirmMfa({ enrollment, lastResult }: { enrollment: MfaEnrollment & { qrSvg: string }; lastResult: SubmissionResult<string[]> | undefined }) {
  const [form, fields] = useForm({
    id: 'mfa-confirm',
    lastResult,
    defaultNoValidate: false,
    constraint: getZodConstraint(MfaCodeSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: MfaCodeSchema }),
  })
  return (
    <div className="flex flex-col gap-4">
      <ol className="ml-5 list-decimal space-y-1 text-sm">
        <li>In your authenticator app, add an account by scanning this code, or by entering the key below (or open the link on the device with the app).</li>
        <li>Enter the 6-digit code the app then shows.</li>
      </ol>
      <QrCode svg={enrollment.qrSvg} label="QR code of the authenticator link" />
      <dl className="grid gap-2 text-sm">
        <dt className="text-muted">Key</dt>
        <dd>
          <code data-testid="mfa-secret" className="rounded bg-surface-muted px-2 py-1 font-mono text-base tracking-wider break-all select-all">
            {enrollment.secret}
          </code>
        </dd>
        <dt className="text-muted">Link</dt>
        <dd>
          <a href={enrollment.otpauthUri} className="font-mono text-xs break-all text-primary underline">
            {enrollment.otpauthUri}
          </a>
        </dd>
      </dl>
      <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
        <CsrfInput />
        <input type="hidden" name="intent" value="mfa-confirm" />
        <FormError id={form.errorId} errors={form.errors} />
        <Field
          label="Code from the app"
          inputProps={{ ...getInputProps(fields.code, { type: 'text' }), inputMode: 'numeric', autoComplete: 'one-time-code' }}
          errors={fields.code.errors}
        />
        <SubmitButton intent="mfa-confirm" pendingLabel="Checking…" className="self-start">
          Turn on two-factor authentication
        </SubmitButton>
      </Form>
    </div>
  )
}

function RemoveMfa({ enforced, lastResult }: { enforced: boolean; lastResult: SubmissionResult<string[]> | undefined }) {
  const [form, fields] = useForm({
    id: 'mfa-remove',
    lastResult,
    defaultNoValidate: false,
    constraint: getZodConstraint(MfaCodeSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: MfaCodeSchema }),
  })
  if (enforced) {
    return <p className="text-sm">Signing in asks for a code from your authenticator app. It is required for your account, so it cannot be turned off here.</p>
  }
  return (
    <>
      <p className="mb-4 text-sm">Signing in asks for a code from your authenticator app. To turn this off, enter the code the app shows now.</p>
      <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
        <CsrfInput />
        <input type="hidden" name="intent" value="mfa-remove" />
        <FormError id={form.errorId} errors={form.errors} />
        <Field
          label="Current code"
          inputProps={{ ...getInputProps(fields.code, { type: 'text' }), inputMode: 'numeric', autoComplete: 'one-time-code' }}
          errors={fields.code.errors}
        />
        <SubmitButton intent="mfa-remove" variant="critical" pendingLabel="Turning off…" className="self-start">
          Turn off two-factor authentication
        </SubmitButton>
      </Form>
    </>
  )
}
