import { cx } from '~/components/ui/class-names'
import type { WizardStep } from '~/lib/doc-control/types'

/**
 * The issue wizard's steps as the screen shows them, in order (a draft transmittal remembers the
 * step it was left at as `wizardStep`, so a reload or another device continues there). The API
 * also knows `details`, which this screen folds into "Purpose and message".
 */
export const SCREEN_STEPS = ['revisions', 'recipients', 'message', 'review'] as const satisfies readonly WizardStep[]
export type ScreenStep = (typeof SCREEN_STEPS)[number]

export const STEP_LABELS: Record<ScreenStep, string> = {
  revisions: 'Choose revisions',
  recipients: 'Recipients',
  message: 'Purpose and message',
  review: 'Review and send',
}

/** The step a draft was left at; `details` (or anything unknown) starts at the first. */
export function stepOf(value: unknown): ScreenStep {
  return (SCREEN_STEPS as readonly unknown[]).includes(value) ? (value as ScreenStep) : 'revisions'
}

export function isStep(value: unknown): value is ScreenStep {
  return (SCREEN_STEPS as readonly unknown[]).includes(value)
}

export function nextStep(step: ScreenStep): ScreenStep {
  return SCREEN_STEPS[Math.min(SCREEN_STEPS.indexOf(step) + 1, SCREEN_STEPS.length - 1)] ?? step
}

export function previousStep(step: ScreenStep): ScreenStep {
  return SCREEN_STEPS[Math.max(SCREEN_STEPS.indexOf(step) - 1, 0)] ?? step
}

/** Where the user is: every step in order, the current one marked (in words too, for screen readers). */
export function WizardProgress({ step }: { step: ScreenStep }) {
  const at = SCREEN_STEPS.indexOf(step)
  return (
    <ol aria-label="Steps" className="mb-6 grid grid-cols-2 gap-2 sm:grid-cols-4">
      {SCREEN_STEPS.map((candidate, index) => {
        const state = index < at ? 'done' : index === at ? 'current' : 'todo'
        return (
          <li
            key={candidate}
            aria-current={state === 'current' ? 'step' : undefined}
            className={cx(
              'rounded-md border px-3 py-2 text-sm',
              state === 'current' && 'border-primary bg-info-surface font-semibold text-text',
              state === 'done' && 'border-border bg-surface text-text',
              state === 'todo' && 'border-border bg-surface text-muted',
            )}
          >
            <span className="block text-xs text-muted">
              Step {index + 1} of {SCREEN_STEPS.length}
              {state === 'done' ? ', done' : ''}
            </span>
            {STEP_LABELS[candidate]}
          </li>
        )
      })}
    </ol>
  )
}
