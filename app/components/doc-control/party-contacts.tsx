import { type SubmissionResult, getFormProps, getInputProps, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import { CsrfInput } from '~/components/ui/csrf-input'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { SubmitButton } from '~/components/ui/submit-button'
import type { Party } from '~/lib/doc-control/types'
import { PartyContactFormSchema } from '~/lib/schemas/doc-control'

/**
 * A party's outside contacts (issue 32): people of other firms, no members and no seats; a
 * transmittal to the party mails each a link. A manager removes one (intent `remove-contact`) or
 * adds one (intent `add-contact`).
 */
export function PartyContacts({ party, canManage, lastResult }: { party: Party; canManage: boolean; lastResult: SubmissionResult<string[]> | undefined }) {
  return (
    <div className="flex flex-col gap-3">
      <h3 className="text-base font-semibold">Outside contacts</h3>
      {party.contacts.length === 0 ? (
        <p className="text-sm text-muted">No outside contacts. People of other firms receive transmittals by a link in a mail, without an account.</p>
      ) : (
        <ul aria-label={`Outside contacts of ${party.name}`} className="flex flex-col divide-y divide-border rounded-md border border-border">
          {party.contacts.map((contact) => (
            <li key={contact.id} className="flex flex-wrap items-center justify-between gap-2 px-3 py-2">
              <span className="flex min-w-0 flex-wrap items-center gap-2">
                <span className="font-medium break-words">{contact.name}</span>
                {contact.company ? <span className="text-sm break-words">{contact.company}</span> : null}
                <span className="text-sm break-all text-muted">{contact.email}</span>
              </span>
              {canManage ? (
                <Form method="post">
                  <CsrfInput />
                  <input type="hidden" name="partyId" value={party.id} />
                  <input type="hidden" name="contactId" value={contact.id} />
                  <SubmitButton intent="remove-contact" variant="plain" size="sm" pendingLabel="Removing…" aria-label={`Remove ${contact.name} from ${party.name}`}>
                    Remove
                  </SubmitButton>
                </Form>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      {canManage ? <AddContactForm party={party} lastResult={lastResult} /> : null}
    </div>
  )
}

function AddContactForm({ party, lastResult }: { party: Party; lastResult: SubmissionResult<string[]> | undefined }) {
  const [form, fields] = useForm({
    id: `party-contact-${party.id}`,
    lastResult,
    defaultNoValidate: false,
    constraint: getZodConstraint(PartyContactFormSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: PartyContactFormSchema }),
  })
  return (
    <Form method="post" {...getFormProps(form)} aria-label={`Add an outside contact to ${party.name}`} className="flex flex-col gap-3 sm:flex-row sm:flex-wrap sm:items-end">
      <CsrfInput />
      <input type="hidden" name="partyId" value={party.id} />
      <FormError id={form.errorId} errors={form.errors} />
      <Field label="Name" inputProps={{ ...getInputProps(fields.name, { type: 'text' }), id: `party-contact-${party.id}-name`, autoComplete: 'off' }} errors={fields.name.errors} />
      <Field label="Company" inputProps={{ ...getInputProps(fields.company, { type: 'text' }), id: `party-contact-${party.id}-company`, autoComplete: 'off' }} errors={fields.company.errors} />
      <Field label="E-mail" inputProps={{ ...getInputProps(fields.email, { type: 'email' }), id: `party-contact-${party.id}-email`, autoComplete: 'off' }} errors={fields.email.errors} />
      <SubmitButton intent="add-contact" variant="secondary" pendingLabel="Adding…">
        Add contact
      </SubmitButton>
    </Form>
  )
}
