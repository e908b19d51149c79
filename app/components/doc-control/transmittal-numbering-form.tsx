import { type SubmissionResult, getFormProps, getInputProps, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { useState } from 'react'
import { Form } from 'react-router'
import { firstInvalidField } from '~/components/reporting/report-action'
import { CsrfInput } from '~/components/ui/csrf-input'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { Section } from '~/components/ui/section'
import { SubmitButton } from '~/components/ui/submit-button'
import { parseTransmittalFormat, renderTransmittalNumber, type TransmittalNumbering } from '~/lib/doc-control/transmittal-numbering'
import { TransmittalNumberingPutSchema } from '~/lib/schemas/transmittal-numbering'
import { RevisionInput } from '~/components/ui/revision-input'

export const NUMBERING_INTENT = 'transmittal-numbering'

/**
 * How the project numbers its transmittals (docs/doc-control.md "Transmittal numbers"): the next
 * number for everyone; for a manager, the format, saved by a plain form (without JavaScript the
 * server answers the next number; with it, the number is previewed as the format is typed).
 */
export function TransmittalNumberingSection({
  numbering,
  revision,
  lastResult,
}: {
  numbering: TransmittalNumbering
  /** The revision this form saves against (expectedRevision): the loaded one, or the current one after a conflict. */
  revision: number
  lastResult: SubmissionResult<string[]> | undefined
}) {
  const [typed, setTyped] = useState<string | null>(null)
  const [form, fields] = useForm({
    id: 'transmittal-numbering',
    lastResult,
    defaultValue: { format: numbering.format },
    defaultNoValidate: false,
    constraint: getZodConstraint(TransmittalNumberingPutSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: TransmittalNumberingPutSchema }),
  })
  const preview = typed === null ? null : previewOf(typed, numbering)
  const code = numbering.namingCode || 'none'
  return (
    <Section
      title="Transmittal numbers"
      description={
        <>
          The next transmittal of this project will be numbered <strong className="font-mono text-text">{numbering.nextNumber}</strong>. Numbers already given stay as they are.
        </>
      }
    >
      {numbering.canChange ? (
        <Form method="post" {...getFormProps(form)} className="flex max-w-xl flex-col gap-4">
          <CsrfInput />
          <RevisionInput revision={revision} />
          <FormError id={form.errorId} errors={form.errors} />
          <Field
            label="Number format"
            help={
              <>
                {'{project}'} is the project’s naming code ({code}), {'{seq:4}'} the transmittal’s sequence in four digits, {'{year}'} the year it is started. The
                default is {numbering.defaultFormat}.
              </>
            }
            inputProps={{
              ...getInputProps(fields.format, { type: 'text' }),
              autoComplete: 'off',
              spellCheck: false,
              autoFocus: firstInvalidField(lastResult, ['format']) === 'format',
              onInput: (event) => setTyped(event.currentTarget.value),
            }}
            errors={fields.format.errors}
          />
          {preview ? (
            <p className="text-sm text-muted" aria-live="polite">
              {preview}
            </p>
          ) : null}
          <div>
            <SubmitButton intent={NUMBERING_INTENT} pendingLabel="Saving…" variant="secondary">
              Save number format
            </SubmitButton>
          </div>
        </Form>
      ) : null}
    </Section>
  )
}

/** What the typed format would give the next transmittal, or that it cannot be used yet. */
function previewOf(format: string, numbering: TransmittalNumbering): string {
  const { problems } = parseTransmittalFormat(format)
  if (problems.length > 0) return `Not a format yet: ${problems[0] ?? ''}`
  return `With this format the next transmittal is ${renderTransmittalNumber(format, { project: numbering.namingCode, seq: numbering.nextSeq, year: new Date().getFullYear() })}.`
}
