import { getFormProps, getInputProps, type SubmissionResult, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import { Badge } from '~/components/ui/badge'
import { Card } from '~/components/ui/card'
import { CsrfInput } from '~/components/ui/csrf-input'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { SubmitButton } from '~/components/ui/submit-button'
import type { MyOrganisation } from '~/lib/licensing/seats'
import { TenantCreateSchema } from '~/lib/schemas/licensing'

/**
 * Your organisations (issue 16, docs/licensing.md "Organisations"): the ones you belong to, a
 * switch into any other where you are active, and "Create an organisation" (you become its
 * administrator; it starts on the free plan). Plain forms: they work without JavaScript.
 */
export function OrganisationsCard({
  organisations,
  failed,
  lastResult,
  idempotencyKey,
}: {
  organisations: MyOrganisation[]
  failed: boolean
  lastResult: SubmissionResult<string[]> | undefined
  idempotencyKey: string
}) {
  const [form, fields] = useForm({
    id: 'organisation-create',
    lastResult,
    defaultNoValidate: false,
    constraint: getZodConstraint(TenantCreateSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: TenantCreateSchema }),
  })
  return (
    <Card className="p-5" role="region" aria-label="Your organisations">
      <h2 className="mb-1 text-lg font-semibold">Your organisations</h2>
      <p className="mb-4 text-sm text-muted">Switch to another organisation you belong to, or create a new one.</p>
      {failed ? <p className="text-sm text-critical">Your organisations could not be loaded. Reload the page to try again.</p> : null}
      <ul className="mb-6 divide-y divide-border">
        {organisations.map((org) => (
          <li key={org.id} className="flex flex-wrap items-center justify-between gap-3 py-3" aria-label={org.name}>
            <div className="min-w-0 text-sm">
              <p className="font-medium">
                {org.name} {org.isCurrent ? <Badge tone="success">Current</Badge> : null} {org.status !== 'active' ? <Badge tone="warning">Suspended</Badge> : null}
              </p>
              <p className="text-muted">{org.roleName}</p>
            </div>
            {org.isCurrent || org.status !== 'active' ? null : (
              <Form method="post">
                <CsrfInput />
                <input type="hidden" name="tenantId" value={org.id} />
                <SubmitButton intent="organisation-switch" variant="secondary" size="sm" pendingLabel="Switching…">
                  Switch to {org.name}
                </SubmitButton>
              </Form>
            )}
          </li>
        ))}
      </ul>
      <h3 className="mb-3 font-semibold">Create an organisation</h3>
      <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
        <CsrfInput />
        <input type="hidden" name="intent" value="organisation-create" />
        <input type="hidden" name="idempotencyKey" value={idempotencyKey} />
        <FormError id={form.errorId} errors={form.errors} />
        <Field label="Organisation name" inputProps={{ ...getInputProps(fields.name, { type: 'text' }), autoComplete: 'organization' }} errors={fields.name.errors} />
        <Field
          label="Short address (optional)"
          help="Lower-case letters, digits and dashes; made from the name when empty."
          inputProps={{ ...getInputProps(fields.slug, { type: 'text' }), autoComplete: 'off', spellCheck: false }}
          errors={fields.slug.errors}
        />
        <div>
          <SubmitButton pendingLabel="Creating…">Create organisation</SubmitButton>
        </div>
      </Form>
    </Card>
  )
}
