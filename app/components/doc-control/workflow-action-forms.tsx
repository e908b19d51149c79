import { getFormProps, getSelectProps, getTextareaProps, type SubmissionResult, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { useId, useRef } from 'react'
import { Form } from 'react-router'
import { firstInvalidField } from '~/components/reporting/report-action'
import { Button, buttonClasses } from '~/components/ui/button'
import { cx } from '~/components/ui/class-names'
import { CsrfInput } from '~/components/ui/csrf-input'
import { ErrorList } from '~/components/ui/error-list'
import { FormError } from '~/components/ui/form-error'
import { controlClasses, FieldLabel } from '~/components/ui/field-parts'
import { SelectField } from '~/components/ui/select-field'
import { SubmitButton } from '~/components/ui/submit-button'
import { TextareaField } from '~/components/ui/textarea-field'
import { useHydrated } from '~/components/ui/use-hydrated'
import type { StepOutcome, WorkflowRevision, WorkflowTask } from '~/lib/doc-control/types'
import type { Member } from '~/lib/reporting/types'
import { ApproveSchema, APPROVAL_KINDS, CancelSchema, CommentSchema, ReassignSchema, RejectFormSchema, ResubmitSchema, WORKFLOW_TEXT_MAX } from '~/lib/schemas/workflows'

/**
 * The forms of a review's actions (docs/doc-control.md "Workflow"), each a plain POST with its
 * `intent`, so they work without JavaScript. The review's page offers the ones the caller may take
 * (allowedActions); the inbox offers approve and reject on each task, naming the review with a
 * hidden `workflowId`. What is typed comes back with any error.
 */

type Common = {
  /** The review, sent as `workflowId` where one page has several (the inbox). */
  workflowId: string
  withTarget?: boolean
  lastResult: SubmissionResult<string[]> | undefined
}

function Target({ workflowId, withTarget }: Pick<Common, 'workflowId' | 'withTarget'>) {
  return withTarget ? <input type="hidden" name="workflowId" value={workflowId} /> : null
}

const formOptions = { defaultNoValidate: false, shouldValidate: 'onBlur', shouldRevalidate: 'onInput' } as const

const approvals = (outcomes: readonly StepOutcome[]) => outcomes.filter((o) => APPROVAL_KINDS.includes(o.kind))
const returns = (outcomes: readonly StepOutcome[]) => outcomes.filter((o) => !APPROVAL_KINDS.includes(o.kind))

/** "Approve": one of the step's approval outcomes (its label and the code it sets) and an optional comment. */
export function ApproveForm({ workflowId, withTarget, lastResult, outcomes, label = 'Approve' }: Common & { outcomes: readonly StepOutcome[]; label?: string }) {
  const choices = approvals(outcomes)
  const [form, fields] = useForm({
    id: `approve-${workflowId}`,
    lastResult,
    defaultValue: { outcome: choices[0]?.kind ?? '' },
    constraint: getZodConstraint(ApproveSchema),
    onValidate: ({ formData }) => parseWithZod(formData, { schema: ApproveSchema }),
    ...formOptions,
  })
  return (
    <Form method="post" {...getFormProps(form)} aria-label={label} className="flex flex-col gap-4">
      <CsrfInput />
      <Target workflowId={workflowId} withTarget={withTarget} />
      <FormError id={form.errorId} errors={form.errors} />
      {choices.length > 0 ? (
        <SelectField
          label="Outcome"
          selectProps={getSelectProps(fields.outcome)}
          options={choices.map((o) => ({ value: o.kind, label: `${o.label} (sets ${o.status})` }))}
          errors={fields.outcome.errors}
        />
      ) : null}
      <TextareaField label="Comment (optional)" textareaProps={{ ...getTextareaProps(fields.comment), rows: 3, maxLength: WORKFLOW_TEXT_MAX }} errors={fields.comment.errors} />
      <div>
        <SubmitButton intent="approve" pendingLabel="Approving…">
          Approve
        </SubmitButton>
      </div>
    </Form>
  )
}

/** "Reject": revise or reject (the step's own labels) and the reason, which is required. */
export function RejectForm({ workflowId, withTarget, lastResult, outcomes, label = 'Reject' }: Common & { outcomes: readonly StepOutcome[]; label?: string }) {
  const choices = returns(outcomes)
  const [form, fields] = useForm({
    id: `reject-${workflowId}`,
    lastResult,
    defaultValue: { outcome: choices[0]?.kind ?? '' },
    constraint: getZodConstraint(RejectFormSchema),
    onValidate: ({ formData }) => parseWithZod(formData, { schema: RejectFormSchema }),
    ...formOptions,
  })
  const focus = firstInvalidField(lastResult, ['outcome', 'reason'])
  return (
    <Form method="post" {...getFormProps(form)} aria-label={label} className="flex flex-col gap-4">
      <CsrfInput />
      <Target workflowId={workflowId} withTarget={withTarget} />
      <FormError id={form.errorId} errors={form.errors} />
      {choices.length > 0 ? (
        <SelectField
          label="Outcome"
          selectProps={{ ...getSelectProps(fields.outcome), autoFocus: focus === 'outcome' }}
          options={choices.map((o) => ({ value: o.kind, label: `${o.label} (sets ${o.status})` }))}
          errors={fields.outcome.errors}
        />
      ) : null}
      <TextareaField
        label="Reason"
        help="The author reads it with the review; say what to change."
        textareaProps={{ ...getTextareaProps(fields.reason), rows: 4, maxLength: WORKFLOW_TEXT_MAX, autoFocus: focus === 'reason' }}
        errors={fields.reason.errors}
      />
      <div>
        <SubmitButton intent="reject" variant="critical" pendingLabel="Sending back…">
          Reject
        </SubmitButton>
      </div>
    </Form>
  )
}

/** "Comment" (the workflow step comment, spec §3): on the review, or on one of its revisions. */
export function CommentForm({ workflowId, withTarget, lastResult, revisions }: Common & { revisions: readonly WorkflowRevision[] }) {
  const [form, fields] = useForm({
    id: `comment-${workflowId}`,
    lastResult,
    constraint: getZodConstraint(CommentSchema),
    onValidate: ({ formData }) => parseWithZod(formData, { schema: CommentSchema }),
    ...formOptions,
  })
  return (
    <Form method="post" {...getFormProps(form)} aria-label="Comment" className="flex flex-col gap-4">
      <CsrfInput />
      <Target workflowId={workflowId} withTarget={withTarget} />
      <FormError id={form.errorId} errors={form.errors} />
      {revisions.length > 1 ? (
        <SelectField
          label="About"
          selectProps={getSelectProps(fields.revisionId)}
          options={[{ value: '', label: 'The whole review' }, ...revisions.map((r) => ({ value: r.revisionId, label: `${r.number} ${r.code}` }))]}
          errors={fields.revisionId.errors}
        />
      ) : null}
      <TextareaField label="Your comment" textareaProps={{ ...getTextareaProps(fields.comment), rows: 3, maxLength: WORKFLOW_TEXT_MAX }} errors={fields.comment.errors} />
      <div>
        <SubmitButton intent="comment" variant="secondary" pendingLabel="Adding…">
          Add comment
        </SubmitButton>
      </div>
    </Form>
  )
}

/** "Reassign": an open task of this round to another member who may review. */
export function ReassignForm({
  workflowId,
  withTarget,
  lastResult,
  tasks,
  members,
  stepName,
}: Common & { tasks: readonly WorkflowTask[]; members: readonly Member[]; stepName: (step: number) => string }) {
  const [form, fields] = useForm({
    id: `reassign-${workflowId}`,
    lastResult,
    defaultValue: { taskId: tasks.length === 1 ? tasks[0]?.id : '' },
    constraint: getZodConstraint(ReassignSchema),
    onValidate: ({ formData }) => parseWithZod(formData, { schema: ReassignSchema }),
    ...formOptions,
  })
  return (
    <Form method="post" {...getFormProps(form)} aria-label="Reassign a task" className="flex flex-col gap-4">
      <CsrfInput />
      <Target workflowId={workflowId} withTarget={withTarget} />
      <FormError id={form.errorId} errors={form.errors} />
      <SelectField
        label="Task"
        selectProps={getSelectProps(fields.taskId)}
        placeholder="Choose a task"
        options={tasks.map((t) => ({ value: t.id, label: `${stepName(t.step)}: ${t.assignee.displayName}` }))}
        errors={fields.taskId.errors}
      />
      <SelectField
        label="Hand it to"
        selectProps={getSelectProps(fields.userId)}
        placeholder="Choose a member"
        options={members.filter((m) => m.roleKey !== 'read-only').map((m) => ({ value: m.userId, label: m.displayName }))}
        errors={fields.userId.errors}
      />
      <div>
        <SubmitButton intent="reassign" variant="secondary" pendingLabel="Reassigning…">
          Reassign
        </SubmitButton>
      </div>
    </Form>
  )
}

/**
 * "Resubmit" after a return: for each document under review, the revision that answers it (the
 * document's newest by default, e.g. P02), and a message. A new round starts at step 1.
 */
export function ResubmitForm({
  workflowId,
  withTarget,
  lastResult,
  documents,
}: Common & { documents: ReadonlyArray<{ documentId: string; number: string; reviewed: string; choices: ReadonlyArray<{ id: string; code: string }>; suggested: string }> }) {
  const [form, fields] = useForm({
    id: `resubmit-${workflowId}`,
    lastResult,
    defaultValue: { revisionIds: documents.map((d) => d.suggested) },
    constraint: getZodConstraint(ResubmitSchema),
    onValidate: ({ formData }) => parseWithZod(formData, { schema: ResubmitSchema }),
    ...formOptions,
  })
  const typed = fields.revisionIds.initialValue
  const chosen = Array.isArray(typed) ? typed : typeof typed === 'string' ? [typed] : []
  const errorId = fields.revisionIds.errorId
  const errors = [
    ...(fields.revisionIds.errors ?? []),
    ...Object.entries(fields.revisionIds.allErrors).flatMap(([name, messages]) => (name === fields.revisionIds.name ? [] : messages)),
  ]
  return (
    <Form method="post" {...getFormProps(form)} aria-label="Resubmit" className="flex flex-col gap-4">
      <CsrfInput />
      <Target workflowId={workflowId} withTarget={withTarget} />
      <FormError id={form.errorId} errors={form.errors} />
      <ErrorList id={errorId} errors={errors.length > 0 ? errors : undefined} />
      {documents.map((doc, index) => (
        <RevisionChoice key={doc.documentId} doc={doc} value={chosen[index] ?? doc.suggested} invalid={errors.length > 0} errorId={errorId} />
      ))}
      <TextareaField label="Message (optional)" textareaProps={{ ...getTextareaProps(fields.message), rows: 3, maxLength: WORKFLOW_TEXT_MAX }} errors={fields.message.errors} />
      <div>
        <SubmitButton intent="resubmit" pendingLabel="Resubmitting…">
          Resubmit
        </SubmitButton>
      </div>
    </Form>
  )
}

/** One document's revision to resubmit with: all `revisionIds` selects share the name, one per document, in order. */
function RevisionChoice({
  doc,
  value,
  invalid,
  errorId,
}: {
  doc: { documentId: string; number: string; reviewed: string; choices: ReadonlyArray<{ id: string; code: string }> }
  value: string
  invalid: boolean
  errorId: string
}) {
  const id = useId()
  return (
    <div className="flex flex-col gap-1.5">
      <FieldLabel htmlFor={id}>
        New revision of <span className="font-mono">{doc.number}</span>
      </FieldLabel>
      <p className="text-sm text-muted">Reviewed last: {doc.reviewed}.</p>
      <select
        id={id}
        name="revisionIds"
        defaultValue={value}
        aria-invalid={invalid || undefined}
        aria-describedby={invalid ? errorId : undefined}
        className={controlClasses(invalid)}
      >
        {doc.choices.map((choice) => (
          <option key={choice.id} value={choice.id}>
            {choice.code}
          </option>
        ))}
      </select>
    </div>
  )
}

/**
 * "Cancel review", confirmed first without JavaScript as ConfirmDialog does (a disclosure holding
 * the form), with an optional reason for the record.
 */
export function CancelForm({ workflowId, withTarget, lastResult }: Common) {
  const hydrated = useHydrated()
  const detailsRef = useRef<HTMLDetailsElement>(null)
  const titleId = useId()
  const [form, fields] = useForm({
    id: `cancel-${workflowId}`,
    lastResult,
    constraint: getZodConstraint(CancelSchema),
    onValidate: ({ formData }) => parseWithZod(formData, { schema: CancelSchema }),
    ...formOptions,
  })
  function close() {
    if (!detailsRef.current) return
    detailsRef.current.open = false
    detailsRef.current.querySelector('summary')?.focus()
  }
  return (
    <details ref={detailsRef} open={lastResult !== undefined || undefined} className="group">
      <summary className={cx(buttonClasses({ variant: 'critical' }), 'list-none [&::-webkit-details-marker]:hidden')}>Cancel review…</summary>
      <div role="group" aria-labelledby={titleId} className="mt-3 max-w-md rounded-lg border-2 border-critical bg-surface p-4 shadow-sm">
        <p id={titleId} className="font-semibold text-text">
          Cancel this review?
        </p>
        <p className="mt-2 text-sm text-muted">Its reviewers’ tasks close and its revisions are free for a new revision or another review. Its history stays.</p>
        <Form method="post" {...getFormProps(form)} className="mt-4 flex flex-col gap-4">
          <CsrfInput />
          <Target workflowId={workflowId} withTarget={withTarget} />
          <FormError id={form.errorId} errors={form.errors} />
          <TextareaField label="Reason (optional)" textareaProps={{ ...getTextareaProps(fields.reason), rows: 2, maxLength: WORKFLOW_TEXT_MAX }} errors={fields.reason.errors} />
          <div className="flex flex-wrap gap-2">
            <SubmitButton intent="cancel" variant="critical" pendingLabel="Cancelling…">
              Yes, cancel review
            </SubmitButton>
            {hydrated ? (
              <Button variant="secondary" onClick={close}>
                Keep it
              </Button>
            ) : null}
          </div>
        </Form>
      </div>
    </details>
  )
}
