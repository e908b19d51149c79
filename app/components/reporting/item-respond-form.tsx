import { getFormProps, getInputProps, getTextareaProps, type SubmissionResult, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { type ReactNode } from 'react'
import { Form } from 'react-router'
import { CheckboxField } from '~/components/ui/checkbox-field'
import { CsrfInput } from '~/components/ui/csrf-input'
import { FormError } from '~/components/ui/form-error'
import { SubmitButton } from '~/components/ui/submit-button'
import { TextareaField } from '~/components/ui/textarea-field'
import { RespondSchema } from '~/lib/schemas/reporting-items'

/** A response in the thread; on an open item it may ask the verifier to close it. */
export function ItemRespondForm({ canRequestClose, lastResult, photos }: { canRequestClose: boolean; lastResult: SubmissionResult<string[]> | undefined; photos?: ReactNode }) {
  const [form, fields] = useForm({
    id: 'respond',
    lastResult,
    defaultNoValidate: false,
    constraint: getZodConstraint(RespondSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: RespondSchema }),
  })
  return (
    <Form method="post" {...getFormProps(form)} encType={photos ? 'multipart/form-data' : undefined} className="flex flex-col gap-4">
      <CsrfInput />
      <FormError id={form.errorId} errors={form.errors} />
      <TextareaField label="Your response" textareaProps={{ ...getTextareaProps(fields.body), rows: 4 }} errors={fields.body.errors} />
      {photos}
      {canRequestClose ? (
        <CheckboxField
          label="Ask to close this item"
          help="The verifier (whoever recorded it) then confirms the close or rejects it with a reason."
          inputProps={getInputProps(fields.requestClose, { type: 'checkbox' })}
          errors={fields.requestClose.errors}
        />
      ) : null}
      <div>
        <SubmitButton intent="respond" pendingLabel="Sending…">
          Send response
        </SubmitButton>
      </div>
    </Form>
  )
}
