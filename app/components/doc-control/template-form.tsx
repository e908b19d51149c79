import { type FieldMetadata, getFormProps, getInputProps, getSelectProps, getTextareaProps, type SubmissionResult, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import { Button } from '~/components/ui/button'
import { CheckboxField } from '~/components/ui/checkbox-field'
import { CsrfInput } from '~/components/ui/csrf-input'
import { ErrorList } from '~/components/ui/error-list'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { SelectField } from '~/components/ui/select-field'
import { SubmitButton } from '~/components/ui/submit-button'
import { TextareaField } from '~/components/ui/textarea-field'
import { ROLE_KEY_LABELS } from '~/lib/auth/role'
import type { OutcomeKind, WorkflowTemplate } from '~/lib/doc-control/types'
import type { Member } from '~/lib/reporting/types'
import { TemplateFormSchema } from '~/lib/schemas/workflow-forms'
import { MAX_DUE_DAYS, MAX_STEPS, MIN_DUE_DAYS, REVIEWER_ROLES, STEP_NAME_MAX, TEMPLATE_DESCRIPTION_MAX, TEMPLATE_NAME_MAX } from '~/lib/schemas/workflows'
import { newStepValue, OUTCOME_KIND_TEXT, statusChoices, templateFormValue } from './template-form-values'
import { RevisionInput } from '~/components/ui/revision-input'

/** The parties reviewers can be chosen from, by project (a party belongs to one project). */
export type PartyChoices = Array<{ projectName: string; parties: Array<{ id: string; name: string }> }>

function useTemplateForm(template: WorkflowTemplate | null, lastResult: SubmissionResult<string[]> | undefined) {
  return useForm({
    id: template ? `template-${template.id}` : 'template-new',
    lastResult,
    defaultValue: templateFormValue(template),
    defaultNoValidate: false,
    constraint: getZodConstraint(TemplateFormSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: TemplateFormSchema }),
  })
}

/** A step's fields and an outcome row's, as the form types them (from its schema). */
type StepField = ReturnType<ReturnType<typeof useTemplateForm>[1]['steps']['getFieldList']>[number]
type OutcomeRowField = ReturnType<ReturnType<StepField['getFieldset']>['outcomes']['getFieldList']>[number]

/**
 * "New template" and "Edit template": the name, then the ordered steps, each in its own group.
 * "Add step" and "Remove step" are conform's list buttons: without JavaScript they post the form,
 * and the server answers it with one step more or less and everything typed kept; with it, they
 * change the form in place. Saving an existing template makes its next version.
 */
export function TemplateForm({
  template,
  members,
  parties,
  revision,
  lastResult,
}: {
  template: WorkflowTemplate | null
  /** When changing: the revision this form saves against (expectedRevision), the loaded one or the current one after a conflict. */
  revision?: number | undefined
  members: readonly Member[]
  parties: PartyChoices
  lastResult: SubmissionResult<string[]> | undefined
}) {
  const [form, fields] = useTemplateForm(template, lastResult)
  const steps = fields.steps.getFieldList()
  const reviewers = members.filter((m) => m.roleKey !== 'read-only')
  return (
    <Form method="post" {...getFormProps(form)} aria-label={template ? `Edit ${template.name}` : 'New template'} className="flex flex-col gap-6">
      <CsrfInput />
      <input type="hidden" name="intent" value="save" />
      {template ? <input type="hidden" name="templateId" value={template.id} /> : null}
      {template ? <RevisionInput revision={revision ?? template.revision} /> : null}
      <FormError id={form.errorId} errors={form.errors} />
      <div className="grid max-w-3xl gap-4">
        <Field
          label="Template name"
          inputProps={{ ...getInputProps(fields.name, { type: 'text' }), maxLength: TEMPLATE_NAME_MAX, autoComplete: 'off' }}
          errors={fields.name.errors}
        />
        <TextareaField
          label="Description (optional)"
          textareaProps={{ ...getTextareaProps(fields.description), rows: 2, maxLength: TEMPLATE_DESCRIPTION_MAX }}
          errors={fields.description.errors}
        />
      </div>
      <ErrorList id={fields.steps.errorId} errors={fields.steps.errors} />
      <ol aria-label="Steps, in order" className="flex flex-col gap-6">
        {steps.map((step, index) => (
          <li key={step.key}>
            <StepFieldset step={step} index={index} earlier={steps.slice(0, index)} members={reviewers} parties={parties}>
              {steps.length > 1 ? (
                <Button type="submit" variant="secondary" size="sm" {...form.remove.getButtonProps({ name: fields.steps.name, index })}>
                  Remove step {index + 1}
                </Button>
              ) : null}
            </StepFieldset>
          </li>
        ))}
      </ol>
      <div className="flex flex-wrap gap-3">
        {steps.length < MAX_STEPS ? (
          <Button type="submit" variant="secondary" {...form.insert.getButtonProps({ name: fields.steps.name, defaultValue: newStepValue() })}>
            Add step
          </Button>
        ) : null}
        <SubmitButton intent="save" pendingLabel="Saving…">
          {template ? `Save as version ${template.version + 1}` : 'Create template'}
        </SubmitButton>
      </div>
    </Form>
  )
}

function StepFieldset({
  step,
  index,
  earlier,
  members,
  parties,
  children,
}: {
  step: StepField
  index: number
  earlier: StepField[]
  members: readonly Member[]
  parties: PartyChoices
  children: React.ReactNode
}) {
  const f = step.getFieldset()
  const reviewerErrors = step.allErrors[`${step.name}.reviewers`]
  const reviewersErrorId = `${step.id}-reviewers-error`
  const rows = f.outcomes.getFieldList()
  return (
    <fieldset className="flex flex-col gap-4 rounded-lg border border-border bg-surface p-4">
      <legend className="px-1 text-base font-semibold text-text">Step {index + 1}</legend>
      <div className="grid gap-4 md:grid-cols-2">
        <Field label="Step name" inputProps={{ ...getInputProps(f.name, { type: 'text' }), maxLength: STEP_NAME_MAX, autoComplete: 'off' }} errors={f.name.errors} />
        <Field
          label="Working days allowed"
          help="Monday to Friday, from when the step begins."
          inputProps={{ ...getInputProps(f.dueDays, { type: 'number' }), min: MIN_DUE_DAYS, max: MAX_DUE_DAYS, inputMode: 'numeric' }}
          errors={f.dueDays.errors}
        />
        <SelectField
          label="Reviewers answer"
          selectProps={getSelectProps(f.mode)}
          options={[
            { value: 'serial', label: 'Serial: the first answer closes the step' },
            { value: 'parallel', label: 'Parallel: every reviewer answers' },
          ]}
          errors={f.mode.errors}
        />
        <SelectField
          label="A parallel step decides by"
          selectProps={getSelectProps(f.consolidate)}
          options={[
            { value: 'strictest', label: 'The strictest answer' },
            { value: 'any', label: 'The first approval' },
          ]}
          errors={f.consolidate.errors}
        />
      </div>
      <fieldset aria-describedby={reviewerErrors ? reviewersErrorId : undefined} className="flex flex-col gap-3">
        <legend className="text-sm font-semibold text-text">Reviewers</legend>
        <ErrorList id={reviewersErrorId} errors={reviewerErrors} />
        <div className="grid gap-4 md:grid-cols-3">
          <CheckboxGroup legend="People" field={f.users} choices={members.map((m) => ({ value: m.userId, label: m.displayName }))} empty="No members who can review." />
          <CheckboxGroup legend="Roles" field={f.roles} choices={REVIEWER_ROLES.map((key) => ({ value: key, label: `Everyone with ${ROLE_KEY_LABELS[key]}` }))} />
          <div className="flex flex-col gap-3">
            {parties.map((group) => (
              <CheckboxGroup
                key={group.projectName}
                legend={`Parties of ${group.projectName}`}
                field={f.parties}
                choices={group.parties.map((p) => ({ value: p.id, label: p.name }))}
              />
            ))}
            <CheckboxField
              label="The parties the matrix names"
              help="Who reviews the document’s discipline and type on its project."
              inputProps={getInputProps(f.matrix, { type: 'checkbox' })}
              errors={f.matrix.errors}
            />
          </div>
        </div>
      </fieldset>
      <fieldset aria-describedby={f.outcomes.errors ? f.outcomes.errorId : undefined} className="flex flex-col gap-3">
        <legend className="text-sm font-semibold text-text">Outcomes</legend>
        <p className="text-sm text-muted">What a reviewer may answer, the label they see and the suitability code it gives the revisions.</p>
        <ErrorList id={f.outcomes.errorId} errors={f.outcomes.errors} />
        {rows.map((row) => (
          <OutcomeRowFields key={row.key} row={row} />
        ))}
      </fieldset>
      <SelectField
        label="On revise or reject, send it back to"
        className="max-w-md"
        selectProps={getSelectProps(f.onReject)}
        options={[
          { value: 'author', label: 'The author, for a new revision' },
          ...earlier.map((other, at) => {
            const name = other.getFieldset().name.value
            return { value: `step:${at}`, label: name ? `Step ${at + 1}: ${name}` : `Step ${at + 1}` }
          }),
        ]}
        errors={f.onReject.errors}
      />
      {children ? <div>{children}</div> : null}
    </fieldset>
  )
}

function OutcomeRowFields({ row }: { row: OutcomeRowField }) {
  const r = row.getFieldset()
  const kind = (r.kind.initialValue ?? r.kind.value ?? 'approved') as OutcomeKind
  const text = OUTCOME_KIND_TEXT[kind]
  return (
    <div className="grid items-start gap-3 rounded-md border border-border p-3 md:grid-cols-[12rem_1fr_1fr]">
      <input {...getInputProps(r.kind, { type: 'hidden' })} />
      <CheckboxField label={`Offer “${text}”`} inputProps={getInputProps(r.offered, { type: 'checkbox' })} errors={r.offered.errors} />
      <Field label={`Label of “${text}”`} inputProps={{ ...getInputProps(r.label, { type: 'text' }), autoComplete: 'off' }} errors={r.label.errors} />
      <SelectField label={`Code “${text}” sets`} selectProps={getSelectProps(r.status)} options={statusChoices(kind)} errors={r.status.errors} />
    </div>
  )
}

function CheckboxGroup({
  legend,
  field,
  choices,
  empty,
}: {
  legend: string
  field: FieldMetadata<string[] | undefined>
  choices: Array<{ value: string; label: string }>
  empty?: string
}) {
  return (
    <fieldset className="flex flex-col gap-2">
      <legend className="text-sm font-medium text-text">{legend}</legend>
      {choices.length === 0 ? <p className="text-sm text-muted">{empty ?? 'None yet.'}</p> : null}
      <div className="flex max-h-56 flex-col gap-2 overflow-y-auto">
        {choices.map((choice) => (
          <CheckboxField
            key={choice.value}
            label={choice.label}
            inputProps={{ ...getInputProps(field, { type: 'checkbox', value: choice.value }), id: `${field.id}-${choice.value}`, required: false }}
          />
        ))}
      </div>
      <ErrorList id={field.errorId} errors={field.errors} />
    </fieldset>
  )
}
