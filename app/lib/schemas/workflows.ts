import { z } from 'zod'
import { OUTCOMES, type OutcomeKind } from '~/lib/doc-control/types'
import { stateOfStatus, SUITABILITY_CODES } from '~/lib/documents/rules'

/**
 * Review workflows (docs/doc-control.md "Workflow"): the template's steps and the bodies of the
 * workflow actions, shared by the API (server/api/doc-control/templates.ts, workflows.ts) and the
 * screens. What needs the organisation (that a named member or party exists) the backend checks
 * and answers as field errors under the same names (`steps.0.reviewers.1`).
 */

export const TEMPLATE_NAME_MAX = 120
export const TEMPLATE_DESCRIPTION_MAX = 2000
export const STEP_NAME_MAX = 80
export const OUTCOME_LABEL_MAX = 60
/** Ours: more steps than this is a process, not a review. */
export const MAX_STEPS = 20
export const MAX_REVIEWER_RULES = 20
/** Working days a step may allow: a day to twelve weeks. */
export const MIN_DUE_DAYS = 1
export const MAX_DUE_DAYS = 60
export const WORKFLOW_TEXT_MAX = 2000
/** Revisions one review may cover (the ids travel in one request). */
export const MAX_WORKFLOW_REVISIONS = 100
export const MAX_STEP_REVIEWERS = 20

/** The kinds that pass a step; the others (revise, rejected) send it back. */
export const APPROVAL_KINDS: readonly OutcomeKind[] = ['approved', 'approved-with-comments']

export function isApproval(kind: OutcomeKind): boolean {
  return APPROVAL_KINDS.includes(kind)
}

/** Strictest last: a parallel step's result is the strictest answer (docs/doc-control.md). */
export const OUTCOME_SEVERITY: Record<OutcomeKind, number> = { approved: 0, 'approved-with-comments': 1, revise: 2, rejected: 3 }

/** Members who review: read-only members read but never change, so they cannot be reviewers. */
export const REVIEWER_ROLES = ['admin', 'read-write'] as const

const uuid = (what: string) => z.uuid({ error: `Choose ${what}.` })

export const ReviewerRuleSchema = z.discriminatedUnion(
  'type',
  [
    z.object({ type: z.literal('user'), userId: uuid('a person') }),
    z.object({ type: z.literal('role'), roleKey: z.enum(REVIEWER_ROLES, { error: 'A reviewing role is admin or read-write: read-only members cannot review.' }) }),
    z.object({ type: z.literal('party'), partyId: uuid('a party') }),
    z.object({ type: z.literal('matrix') }),
  ],
  { error: 'A reviewer is a person (user), a role, a party or the matrix.' },
)

export const StepOutcomeSchema = z
  .object({
    kind: z.enum(OUTCOMES, { error: 'An outcome is approved, approved-with-comments, revise or rejected.' }),
    label: z
      .string({ error: 'Give the outcome a label.' })
      .trim()
      .min(1, 'Give the outcome a label.')
      .max(OUTCOME_LABEL_MAX, `A label is at most ${OUTCOME_LABEL_MAX} characters.`),
    status: z
      .string({ error: 'Choose the suitability code the outcome sets.' })
      .trim()
      .toUpperCase()
      .refine((code) => SUITABILITY_CODES.includes(code), `The code is a suitability code: ${SUITABILITY_CODES.join(', ')}.`),
  })
  .superRefine((outcome, issue) => {
    const state = stateOfStatus(outcome.status)
    if (state === undefined) return
    // Work in progress is the author's own: no review outcome sends a revision back there.
    if (state === 'WIP') issue.addIssue({ code: 'custom', path: ['status'], message: 'An outcome cannot set S0 (work in progress).' })
    // Revise and rejected leave the revision shared for the next round (ISO 19650: S-codes).
    if (!isApproval(outcome.kind) && state !== 'Shared') issue.addIssue({ code: 'custom', path: ['status'], message: 'Revise and rejected keep a shared code (S1–S7).' })
  })

export const OnRejectSchema = z.discriminatedUnion(
  'to',
  [z.object({ to: z.literal('author') }), z.object({ to: z.literal('step'), step: z.number({ error: 'Choose the step to send it back to.' }).int().min(0) })],
  { error: 'On reject it goes back to the author or to an earlier step.' },
)

export const StepSchema = z
  .object({
    name: z.string({ error: 'Give the step a name.' }).trim().min(1, 'Give the step a name.').max(STEP_NAME_MAX, `A step name is at most ${STEP_NAME_MAX} characters.`),
    mode: z.enum(['serial', 'parallel'], { error: 'A step is serial or parallel.' }),
    consolidate: z.enum(['strictest', 'any'], { error: 'A parallel step consolidates strictest or any.' }).default('strictest'),
    reviewers: z
      .array(ReviewerRuleSchema, { error: 'Name who reviews at this step.' })
      .min(1, 'Name who reviews at this step.')
      .max(MAX_REVIEWER_RULES, `At most ${MAX_REVIEWER_RULES} reviewer rules per step.`),
    dueDays: z
      .number({ error: `Give the time allowed in working days (${MIN_DUE_DAYS}–${MAX_DUE_DAYS}).` })
      .int('The time allowed is a whole number of working days.')
      .min(MIN_DUE_DAYS, `Allow at least ${MIN_DUE_DAYS} working day.`)
      .max(MAX_DUE_DAYS, `Allow at most ${MAX_DUE_DAYS} working days.`),
    outcomes: z.array(StepOutcomeSchema, { error: 'List the outcomes the step may give.' }).min(1, 'List the outcomes the step may give.').max(OUTCOMES.length),
    onReject: OnRejectSchema.default({ to: 'author' }),
  })
  .superRefine((step, issue) => {
    if (!step.outcomes.some((o) => isApproval(o.kind)))
      issue.addIssue({ code: 'custom', path: ['outcomes'], message: 'A step needs an approval outcome (approved or approved with comments).' })
    const kinds = step.outcomes.map((o) => o.kind)
    kinds.forEach((kind, index) => {
      if (kinds.indexOf(kind) !== index) issue.addIssue({ code: 'custom', path: ['outcomes', index, 'kind'], message: `The step already has a ${kind} outcome.` })
    })
    const rules = step.reviewers.map((r) => JSON.stringify(r))
    rules.forEach((rule, index) => {
      if (rules.indexOf(rule) !== index) issue.addIssue({ code: 'custom', path: ['reviewers', index], message: 'This reviewer is already named at this step.' })
    })
  })

export const TemplateSchema = z
  .object({
    name: z.string({ error: 'Give the template a name.' }).trim().min(1, 'Give the template a name.').max(TEMPLATE_NAME_MAX, `A name is at most ${TEMPLATE_NAME_MAX} characters.`),
    description: z.preprocess(
      (v) => (typeof v === 'string' && v.trim() === '' ? null : v),
      z.string().trim().max(TEMPLATE_DESCRIPTION_MAX, `A description is at most ${TEMPLATE_DESCRIPTION_MAX} characters.`).nullable().optional(),
    ),
    steps: z.array(StepSchema, { error: 'List the steps of the review.' }).min(1, 'A review has at least one step.').max(MAX_STEPS, `A review has at most ${MAX_STEPS} steps.`),
  })
  .superRefine((template, issue) => {
    const names = template.steps.map((s) => s.name.toLowerCase())
    template.steps.forEach((step, index) => {
      if (names.indexOf(step.name.toLowerCase()) !== index) issue.addIssue({ code: 'custom', path: ['steps', index, 'name'], message: `Another step is called “${step.name}”.` })
      // Back to an earlier step only: a step cannot send a revision forward or to itself.
      if (step.onReject.to === 'step' && step.onReject.step >= index)
        issue.addIssue({ code: 'custom', path: ['steps', index, 'onReject', 'step'], message: 'A step sends back to an earlier step only.' })
    })
  })

export type TemplateInput = z.output<typeof TemplateSchema>

const text = (max: number, what: string) =>
  z
    .string({ error: `${what} must be text.` })
    .trim()
    .max(max, `${what} is at most ${max} characters.`)
const blankAsAbsent = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v)

const revisionIds = z
  .array(uuid('a revision'), { error: 'Choose the revisions to review.' })
  .min(1, 'Choose at least one revision.')
  .max(MAX_WORKFLOW_REVISIONS, `Review at most ${MAX_WORKFLOW_REVISIONS} revisions at once.`)

/** POST /api/projects/{projectId}/workflows. `reviewers`: per step index, people chosen instead of the template's rules (the proposal). */
export const StartWorkflowSchema = z.object({
  templateId: uuid('a workflow template'),
  revisionIds,
  message: z.preprocess(blankAsAbsent, text(WORKFLOW_TEXT_MAX, 'The message').optional()),
  dueDate: z.preprocess(blankAsAbsent, z.iso.date({ error: 'The due date is a date (YYYY-MM-DD).' }).optional()),
  reviewers: z
    .record(
      z.string().regex(/^(0|[1-9]\d?)$/, 'Reviewers are given per step number (0, 1, …).'),
      z
        .array(uuid('a person'), { error: 'List the people of the step.' })
        .min(1, 'Name at least one person.')
        .max(MAX_STEP_REVIEWERS, `At most ${MAX_STEP_REVIEWERS} people per step.`),
      { error: 'reviewers are lists of people by step number.' },
    )
    .optional(),
})

export const ApproveSchema = z.object({
  outcome: z.preprocess(blankAsAbsent, z.enum(OUTCOMES, { error: 'Choose one of the step’s outcomes.' }).optional()),
  comment: z.preprocess(blankAsAbsent, text(WORKFLOW_TEXT_MAX, 'The comment').optional()),
})

/** The API's body: a missing reason is answered 422 by the domain (docs/doc-control.md), so it is optional here. */
export const RejectSchema = z.object({
  outcome: z.preprocess(blankAsAbsent, z.enum(OUTCOMES, { error: 'Choose one of the step’s outcomes.' }).optional()),
  reason: z.preprocess(blankAsAbsent, text(WORKFLOW_TEXT_MAX, 'The reason').optional()),
})

/** The screens' reject form: the browser asks for the reason before sending. */
export const RejectFormSchema = RejectSchema.extend({
  reason: text(WORKFLOW_TEXT_MAX, 'The reason').min(1, 'Give the reason for sending it back.'),
})

export const CommentSchema = z.object({
  comment: text(WORKFLOW_TEXT_MAX, 'The comment').min(1, 'Write the comment.'),
  revisionId: z.preprocess(blankAsAbsent, uuid('a revision of this review').optional()),
})

export const ReassignSchema = z.object({ taskId: uuid('the task to hand over'), userId: uuid('the person to take it over') })

export const CancelSchema = z.object({ reason: z.preprocess(blankAsAbsent, text(WORKFLOW_TEXT_MAX, 'The reason').optional()) })

export const ResubmitSchema = z.object({ revisionIds, message: z.preprocess(blankAsAbsent, text(WORKFLOW_TEXT_MAX, 'The message').optional()) })
