import { getFormProps, getInputProps, getSelectProps, getTextareaProps, type SubmissionResult, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form, Link } from 'react-router'
import { Button } from '~/components/ui/button'
import { CheckboxField } from '~/components/ui/checkbox-field'
import { CsrfInput } from '~/components/ui/csrf-input'
import { ErrorList } from '~/components/ui/error-list'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { SelectField } from '~/components/ui/select-field'
import { SubmitButton } from '~/components/ui/submit-button'
import { TextareaField } from '~/components/ui/textarea-field'
import type { Notice } from '~/components/reporting/report-action'
import type { WorkflowProposal, WorkflowSummary, WorkflowTemplate } from '~/lib/doc-control/types'
import type { Revision } from '~/lib/documents/types'
import type { Member } from '~/lib/reporting/types'
import { StartReviewFormSchema } from '~/lib/schemas/workflow-forms'
import { WORKFLOW_TEXT_MAX } from '~/lib/schemas/workflows'

/** What the "Reviews" section of a document's page shows (loaded by routes/doc-control/workflow-start.server.ts). */
export type StartReview = {
  templates: Array<Pick<WorkflowTemplate, 'id' | 'name' | 'version'>>
  /** The template chosen, with each step's proposal; null until one is chosen. */
  chosen: { template: WorkflowTemplate; proposal: WorkflowProposal } | null
  members: Member[]
  /** Why the proposal could not be made (an archived template, say). */
  problem: string | null
}

export type DocumentReviews = { reviews: WorkflowSummary[]; start: StartReview | null; notice: Notice | null }

/**
 * The first step of "Start review": which template. A GET form to the document's own page, so the
 * reviewers of each step can be proposed before anything is started, without JavaScript too.
 */
export function ReviewTemplateChoice({
  action,
  param,
  templates,
  chosenId,
}: {
  action: string
  param: string
  templates: ReadonlyArray<Pick<WorkflowTemplate, 'id' | 'name' | 'version'>>
  chosenId: string | null
}) {
  if (templates.length === 0) {
    return <p className="text-sm text-muted">No workflow templates yet. An administrator defines them in Administration › Workflow templates.</p>
  }
  return (
    <Form method="get" action={action} key={chosenId ?? ''} aria-label="Choose a workflow template" className="flex flex-col gap-3 sm:flex-row sm:items-end">
      <SelectField
        label="Workflow template"
        className="sm:min-w-72"
        selectProps={{ name: param, id: 'review-template', defaultValue: chosenId ?? '', required: true }}
        placeholder="Choose a template"
        options={templates.map((t) => ({ value: t.id, label: `${t.name} (version ${t.version})` }))}
      />
      <Button type="submit" variant="secondary">
        Propose reviewers
      </Button>
    </Form>
  )
}

/**
 * The second step: the revision (the current one unless another is chosen), a message, a due date,
 * and each step's reviewers, the proposed ones ticked. Starting shares a work-in-progress revision
 * (S3) and locks it until the review ends.
 */
export function WorkflowStartForm({
  template,
  proposal,
  members,
  revisions,
  currentRevisionId,
  cancelHref,
  lastResult,
}: {
  template: WorkflowTemplate
  proposal: WorkflowProposal
  members: readonly Member[]
  revisions: readonly Revision[]
  currentRevisionId: string | null
  cancelHref: string
  lastResult: SubmissionResult<string[]> | undefined
}) {
  const [form, fields] = useForm({
    id: `start-review-${template.id}`,
    lastResult,
    defaultValue: {
      templateId: template.id,
      revisionId: currentRevisionId ?? revisions[0]?.id ?? '',
      steps: template.steps.map((_, index) => ({ reviewers: proposal.steps.find((s) => s.step === index)?.reviewers.map((r) => r.id) ?? [] })),
    },
    defaultNoValidate: false,
    constraint: getZodConstraint(StartReviewFormSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: StartReviewFormSchema }),
  })
  const steps = fields.steps.getFieldList()
  const reviewers = members.filter((m) => m.roleKey !== 'read-only')
  return (
    <Form method="post" {...getFormProps(form)} aria-label="Start review" className="flex flex-col gap-4">
      <CsrfInput />
      <input {...getInputProps(fields.templateId, { type: 'hidden' })} />
      <FormError id={form.errorId} errors={form.errors} />
      <p className="text-sm">
        With <span className="font-medium">{template.name}</span> (version {template.version}).{' '}
        <Link to={cancelHref} className="text-primary-strong underline underline-offset-2">
          Choose another template
        </Link>
      </p>
      <SelectField
        label="Revision"
        selectProps={getSelectProps(fields.revisionId)}
        options={revisions.map((r) => ({ value: r.id, label: r.id === currentRevisionId ? `${r.code} (current, ${r.status})` : `${r.code} (${r.status})` }))}
        errors={fields.revisionId.errors}
      />
      <TextareaField
        label="Message (optional)"
        help="The reviewers read it in their mail and on the review."
        textareaProps={{ ...getTextareaProps(fields.message), rows: 3, maxLength: WORKFLOW_TEXT_MAX }}
        errors={fields.message.errors}
      />
      <Field
        label="Due date (optional)"
        help="Leave it empty to allow each step its working days."
        inputProps={getInputProps(fields.dueDate, { type: 'date' })}
        errors={fields.dueDate.errors}
      />
      {template.steps.map((step, index) => {
        const field = steps[index]
        if (!field) return null
        const people = field.getFieldset().reviewers
        const proposed = proposal.steps.find((s) => s.step === index)
        const errors = Object.values(field.allErrors).flat()
        return (
          <fieldset key={index} aria-describedby={errors.length > 0 ? people.errorId : undefined} className="flex flex-col gap-2 rounded-lg border border-border p-3">
            <legend className="px-1 text-sm font-semibold text-text">
              Step {index + 1}: {step.name}
            </legend>
            <p className="text-sm text-muted">{proposed?.problem ?? 'Proposed from the template and the project’s responsibility matrix; change them if needed.'}</p>
            <ErrorList id={people.errorId} errors={errors.length > 0 ? errors : undefined} />
            <div className="flex max-h-56 flex-col gap-2 overflow-y-auto">
              {reviewers.map((m) => (
                <CheckboxField
                  key={m.userId}
                  label={m.displayName}
                  inputProps={{ ...getInputProps(people, { type: 'checkbox', value: m.userId }), id: `${people.id}-${m.userId}`, required: false }}
                />
              ))}
            </div>
          </fieldset>
        )
      })}
      <div>
        <SubmitButton intent="start-review" pendingLabel="Starting…">
          Start review
        </SubmitButton>
      </div>
    </Form>
  )
}
