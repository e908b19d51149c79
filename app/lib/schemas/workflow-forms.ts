import { z } from 'zod'
import { OUTCOMES, type OutcomeKind, type ReviewerRule, type WorkflowStepDefinition } from '~/lib/doc-control/types'
import { MAX_DUE_DAYS, MAX_STEP_REVIEWERS, MAX_STEPS, MIN_DUE_DAYS, REVIEWER_ROLES, STEP_NAME_MAX, TemplateSchema, WORKFLOW_TEXT_MAX } from './workflows'

/**
 * The review screens' forms whose fields are not the API's body (app/lib/schemas/workflows.ts has
 * those): the template editor, where a step's reviewers are checkboxes per kind and its outcomes
 * four fixed rows, and "Start review", one revision and the people per step. Each form schema
 * checks its fields, then the API's own schema on the body it makes, so a rule of the template
 * (names unique, a code per kind, back to an earlier step only) shows next to its field before
 * anything is sent. Field names follow conform: `steps[0].outcomes[2].status`.
 */

const blankAsAbsent = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v)
const ids = (what: string) => z.array(z.uuid({ error: `Choose ${what} from the list.` })).optional()

/** One of the four outcome rows of a step: offered or not, with its label and the code it sets. */
const OutcomeRowSchema = z.object({
  kind: z.enum(OUTCOMES, { error: 'An outcome is approved, approved with comments, revise or rejected.' }),
  offered: z.boolean().optional(),
  label: z.preprocess(blankAsAbsent, z.string().trim().optional()),
  status: z.preprocess(blankAsAbsent, z.string().trim().optional()),
})

/** Where a step sends a revise or reject: `author`, or `step:<index>` of an earlier step. */
const ON_REJECT = /^(author|step:\d{1,2})$/

const StepFormSchema = z.object({
  name: z.string({ error: 'Give the step a name.' }).trim().min(1, 'Give the step a name.').max(STEP_NAME_MAX, `A step name is at most ${STEP_NAME_MAX} characters.`),
  mode: z.enum(['serial', 'parallel'], { error: 'Choose serial or parallel.' }),
  consolidate: z.enum(['strictest', 'any'], { error: 'Choose how a parallel step decides.' }),
  dueDays: z
    .number({ error: `Give the time allowed in working days (${MIN_DUE_DAYS}–${MAX_DUE_DAYS}).` })
    .int('The time allowed is a whole number of working days.')
    .min(MIN_DUE_DAYS, `Allow at least ${MIN_DUE_DAYS} working day.`)
    .max(MAX_DUE_DAYS, `Allow at most ${MAX_DUE_DAYS} working days.`),
  users: ids('a person'),
  roles: z.array(z.enum(REVIEWER_ROLES, { error: 'Choose a role from the list.' })).optional(),
  parties: ids('a party'),
  matrix: z.boolean().optional(),
  outcomes: z.array(OutcomeRowSchema).length(OUTCOMES.length, 'The step’s outcomes are missing: reload the page.'),
  onReject: z.string({ error: 'Choose where a revise or reject goes.' }).regex(ON_REJECT, 'Choose where a revise or reject goes.'),
})

type TemplateForm = z.output<typeof TemplateFormShape>
type StepForm = TemplateForm['steps'][number]

const TemplateFormShape = z.object({
  name: z.string({ error: 'Give the template a name.' }).trim().min(1, 'Give the template a name.'),
  description: z.preprocess(blankAsAbsent, z.string().trim().optional()),
  steps: z.array(StepFormSchema, { error: 'Add the review’s first step.' }).min(1, 'A review has at least one step.').max(MAX_STEPS, `A review has at most ${MAX_STEPS} steps.`),
})

/** A step's reviewers as the API's rules: the people, roles and parties ticked, and the matrix. */
export function reviewerRulesOf(step: StepForm): ReviewerRule[] {
  return [
    ...(step.users ?? []).map((userId): ReviewerRule => ({ type: 'user', userId })),
    ...(step.roles ?? []).map((roleKey): ReviewerRule => ({ type: 'role', roleKey })),
    ...(step.parties ?? []).map((partyId): ReviewerRule => ({ type: 'party', partyId })),
    ...(step.matrix ? [{ type: 'matrix' } as const] : []),
  ]
}

/** The body of POST/PUT /api/workflow-templates from the form: only the outcomes ticked, in the fixed order. */
export function templateBodyOf(form: TemplateForm) {
  return {
    name: form.name,
    description: form.description ?? null,
    steps: form.steps.map((step): WorkflowStepDefinition => ({
      name: step.name,
      mode: step.mode,
      consolidate: step.consolidate,
      reviewers: reviewerRulesOf(step),
      dueDays: step.dueDays,
      outcomes: step.outcomes.filter((row) => row.offered).map((row) => ({ kind: row.kind, label: row.label ?? '', status: row.status ?? '' })),
      onReject: step.onReject === 'author' ? { to: 'author' } : { to: 'step', step: Number(step.onReject.slice('step:'.length)) },
    })),
  }
}

/**
 * The form field an error of the API's body is about (`steps.0.outcomes.1.status`, as a zod path
 * or the backend's dotted key): outcomes by their row (the body lists only the ones ticked), a
 * reviewer rule as the step's reviewers, where a revise goes as the step's choice of it.
 */
export function templateFieldOf(path: ReadonlyArray<string | number>, form: Pick<TemplateForm, 'steps'>): string {
  const [head, index, field, item, leaf] = path.map(String)
  if (head !== 'steps' || index === undefined || !/^\d+$/.test(index)) return head === 'description' ? 'description' : head === 'steps' ? 'steps' : 'name'
  const step = `steps[${index}]`
  if (field === undefined) return step
  if (field === 'reviewers') return `${step}.reviewers`
  if (field === 'onReject') return `${step}.onReject`
  if (field === 'outcomes') {
    if (item === undefined || !/^\d+$/.test(item)) return `${step}.outcomes`
    const offered = form.steps[Number(index)]?.outcomes.flatMap((row, at) => (row.offered ? [at] : [])) ?? []
    const row = offered[Number(item)]
    if (row === undefined) return `${step}.outcomes`
    return leaf === 'label' || leaf === 'status' ? `${step}.outcomes[${row}].${leaf}` : `${step}.outcomes[${row}].offered`
  }
  return `${step}.${field}`
}

/**
 * "New template" and "Edit template" (/admin/workflow-templates). After its own fields, the body
 * it makes must pass the API's schema; that schema's messages come back on the form's fields.
 */
export const TemplateFormSchema = TemplateFormShape.superRefine((form, issue) => {
  const checked = TemplateSchema.safeParse(templateBodyOf(form))
  if (checked.success) return
  const seen = new Set<string>()
  for (const problem of checked.error.issues) {
    const field = templateFieldOf(problem.path as Array<string | number>, form)
    const key = `${field} ${problem.message}`
    if (seen.has(key)) continue
    seen.add(key)
    issue.addIssue({ code: 'custom', path: conformPath(field), message: problem.message })
  }
})

/** `steps[0].outcomes[2].status` as a zod path, so conform puts the message under that name. */
function conformPath(name: string): Array<string | number> {
  return name
    .split(/[.[\]]+/)
    .filter(Boolean)
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part))
}

/** Outcome kinds in the order the rows show. */
export const OUTCOME_ROWS: readonly OutcomeKind[] = OUTCOMES

/**
 * "Start review" on a document's page: the template chosen, one revision of the document, a
 * message and a due date, and per step the people who review (the proposal, changed or not).
 */
export const StartReviewFormSchema = z.object({
  templateId: z.uuid({ error: 'Choose a workflow template.' }),
  revisionId: z.uuid({ error: 'Choose the revision to review.' }),
  message: z.preprocess(blankAsAbsent, z.string().trim().max(WORKFLOW_TEXT_MAX, `The message is at most ${WORKFLOW_TEXT_MAX} characters.`).optional()),
  dueDate: z.preprocess(blankAsAbsent, z.iso.date({ error: 'Enter a date, for example 2026-03-31.' }).optional()),
  steps: z
    .array(
      z.object({
        reviewers: z
          .array(z.uuid({ error: 'Choose people from the list.' }), { error: 'Choose at least one reviewer for this step.' })
          .min(1, 'Choose at least one reviewer for this step.')
          .max(MAX_STEP_REVIEWERS, `At most ${MAX_STEP_REVIEWERS} people per step.`),
      }),
    )
    .min(1, 'The template has no steps.'),
})
