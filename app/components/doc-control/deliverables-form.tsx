import { type SubmissionResult, getFormProps, getInputProps, getSelectProps, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import { firstInvalidField } from '~/components/reporting/report-action'
import { ButtonLink } from '~/components/ui/button-link'
import { CsrfInput } from '~/components/ui/csrf-input'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { SelectField } from '~/components/ui/select-field'
import { SubmitButton } from '~/components/ui/submit-button'
import type { Deliverable, Party } from '~/lib/doc-control/types'
import { DELIVERABLE_NUMBER_MAX, DeliverableEditSchema, DeliverableSchema, EXTRA_MILESTONE_ROWS, NEW_MILESTONE_ROWS } from '~/lib/schemas/doc-control'
import { RevisionInput } from '~/components/ui/revision-input'

export type DeliverableFormProps = {
  /** The deliverable being changed (intent `update-deliverable`); absent: a new one (intent `create-deliverable`). */
  deliverable?: Deliverable | undefined
  parties: ReadonlyArray<Pick<Party, 'id' | 'name' | 'code'>>
  example: string
  /** When changing: the revision this form saves against (expectedRevision), the loaded one or the current one after a conflict. */
  revision?: number | undefined
  lastResult: SubmissionResult<string[]> | undefined
  cancelTo?: string | undefined
}

/**
 * A deliverable of the register: its planned number, title, responsible party and a planned date
 * per milestone. Without JavaScript a form cannot grow, so it offers a few empty milestone rows;
 * rows left empty are not milestones.
 */
export function DeliverableForm({ deliverable, parties, example, revision, lastResult, cancelTo }: DeliverableFormProps) {
  const editing = deliverable !== undefined
  const schema = editing ? DeliverableEditSchema : DeliverableSchema
  const rows = editing
    ? [...deliverable.milestones, ...Array.from({ length: EXTRA_MILESTONE_ROWS }, () => ({ name: '', plannedDate: '' }))]
    : Array.from({ length: NEW_MILESTONE_ROWS }, () => ({ name: '', plannedDate: '' }))
  const defaultValue: { number?: string; title?: string; partyId?: string; milestones: Array<{ name: string; plannedDate: string }> } = editing
    ? { number: deliverable.number, title: deliverable.title, partyId: deliverable.partyId ?? '', milestones: rows }
    : { milestones: rows }
  const [form, fields] = useForm({
    id: editing ? `deliverable-edit-${deliverable.id}` : 'deliverable-create',
    lastResult,
    defaultValue,
    defaultNoValidate: false,
    constraint: getZodConstraint(schema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema }),
  })
  const focus = firstInvalidField(lastResult, ['number', 'title', 'partyId'])
  const milestones = fields.milestones.getFieldList()
  return (
    <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
      <CsrfInput />
      {editing ? <input type="hidden" name="deliverableId" value={deliverable.id} /> : null}
      {editing ? <RevisionInput revision={revision ?? deliverable.revision} /> : null}
      <FormError id={form.errorId} errors={[...(form.errors ?? []), ...(fields.milestones.errors ?? [])]} />
      <div className="grid gap-4 sm:grid-cols-2">
        <Field
          label="Number"
          help={`The planned document number, e.g. ${example}. At most ${DELIVERABLE_NUMBER_MAX} characters.`}
          inputProps={{ ...getInputProps(fields.number, { type: 'text' }), autoComplete: 'off', spellCheck: false, autoFocus: editing || focus === 'number' }}
          errors={fields.number.errors}
        />
        <Field label="Title" inputProps={{ ...getInputProps(fields.title, { type: 'text' }), autoComplete: 'off', autoFocus: focus === 'title' }} errors={fields.title.errors} />
        <SelectField
          label="Responsible party"
          selectProps={{ ...getSelectProps(fields.partyId), autoFocus: focus === 'partyId' }}
          placeholder="None yet"
          options={parties.map((p) => ({ value: p.id, label: p.code ? `${p.name} (${p.code})` : p.name }))}
          errors={fields.partyId.errors}
        />
      </div>
      <fieldset className="flex flex-col gap-3">
        <legend className="mb-2 text-sm font-semibold text-text">Milestones and planned dates</legend>
        {milestones.map((row, index) => {
          const m = row.getFieldset()
          return (
            <div key={row.key} className="grid gap-3 sm:grid-cols-2">
              <Field
                label={`Milestone ${index + 1}`}
                inputProps={{ ...getInputProps(m.name, { type: 'text' }), autoComplete: 'off', placeholder: 'e.g. Stage 4' }}
                errors={m.name.errors}
              />
              <Field label={`Planned date ${index + 1}`} inputProps={{ ...getInputProps(m.plannedDate, { type: 'date' }) }} errors={m.plannedDate.errors} />
            </div>
          )
        })}
      </fieldset>
      <div className="flex flex-wrap gap-2">
        <SubmitButton intent={editing ? 'update-deliverable' : 'create-deliverable'} pendingLabel="Saving…" variant={editing ? 'primary' : 'secondary'}>
          {editing ? 'Save deliverable' : 'Add deliverable'}
        </SubmitButton>
        {editing && cancelTo ? (
          <ButtonLink to={cancelTo} variant="secondary">
            Cancel
          </ButtonLink>
        ) : null}
      </div>
    </Form>
  )
}
