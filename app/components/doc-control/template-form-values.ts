import { OUTCOMES, type OutcomeKind, type StepOutcome, type WorkflowStepDefinition, type WorkflowTemplate } from '~/lib/doc-control/types'
import { SUITABILITY } from '~/lib/documents/rules'

/**
 * What the template editor starts from: a template's steps as the form's fields (reviewers as
 * checkboxes per kind, the four outcome rows, where a revise goes as one choice), and a new step.
 * Kept apart from the schema module, whose functions the browser bundle does not carry.
 */

/** The usual labels and codes (ISO 19650-2 UK NA): accepted A1, accepted with comments B1, back for changes S3. */
export const OUTCOME_DEFAULTS: Record<OutcomeKind, { label: string; status: string }> = {
  approved: { label: 'Approved', status: 'A1' },
  'approved-with-comments': { label: 'Approved with comments', status: 'B1' },
  revise: { label: 'Revise and resubmit', status: 'S3' },
  rejected: { label: 'Rejected', status: 'S3' },
}

export const OUTCOME_KIND_TEXT: Record<OutcomeKind, string> = {
  approved: 'Approve',
  'approved-with-comments': 'Approve with comments',
  revise: 'Revise',
  rejected: 'Reject',
}

export const DEFAULT_DUE_DAYS = 5

export type OutcomeRow = { kind: OutcomeKind; offered: boolean; label: string; status: string }

export type StepFormValue = {
  name: string
  mode: 'serial' | 'parallel'
  consolidate: 'strictest' | 'any'
  dueDays: string
  users: string[]
  roles: string[]
  parties: string[]
  matrix: boolean
  outcomes: OutcomeRow[]
  onReject: string
}

export type TemplateFormValue = { name: string; description: string; steps: StepFormValue[] }

function outcomeRows(outcomes: readonly StepOutcome[] | null): OutcomeRow[] {
  return OUTCOMES.map((kind) => {
    const given = outcomes?.find((o) => o.kind === kind)
    return given ? { kind, offered: true, label: given.label, status: given.status } : { kind, offered: outcomes === null, ...OUTCOME_DEFAULTS[kind] }
  })
}

/** A new step: serial, five working days, every outcome offered with its usual code, back to the author. */
export function newStepValue(): StepFormValue {
  return {
    name: '',
    mode: 'serial',
    consolidate: 'strictest',
    dueDays: String(DEFAULT_DUE_DAYS),
    users: [],
    roles: [],
    parties: [],
    matrix: false,
    outcomes: outcomeRows(null),
    onReject: 'author',
  }
}

export function stepFormValue(step: WorkflowStepDefinition): StepFormValue {
  return {
    name: step.name,
    mode: step.mode,
    consolidate: step.consolidate,
    dueDays: String(step.dueDays),
    users: step.reviewers.flatMap((r) => (r.type === 'user' ? [r.userId] : [])),
    roles: step.reviewers.flatMap((r) => (r.type === 'role' ? [r.roleKey] : [])),
    parties: step.reviewers.flatMap((r) => (r.type === 'party' ? [r.partyId] : [])),
    matrix: step.reviewers.some((r) => r.type === 'matrix'),
    outcomes: outcomeRows(step.outcomes),
    onReject: step.onReject.to === 'author' ? 'author' : `step:${step.onReject.step}`,
  }
}

export function templateFormValue(template: WorkflowTemplate | null): TemplateFormValue {
  if (!template) return { name: '', description: '', steps: [newStepValue()] }
  return { name: template.name, description: template.description ?? '', steps: template.steps.map(stepFormValue) }
}

/** The codes an outcome may set: an approval any shared or published code, a revise or reject a shared one (S-codes). */
export function statusChoices(kind: OutcomeKind): Array<{ value: string; label: string }> {
  const approval = kind === 'approved' || kind === 'approved-with-comments'
  return SUITABILITY.filter((s) => (approval ? s.state !== 'WIP' : s.state === 'Shared')).map((s) => ({ value: s.code, label: `${s.code} ${s.label}` }))
}
