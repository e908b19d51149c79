import { SubmitButton } from '~/components/ui/submit-button'
import { STEP_LABELS, type ScreenStep, nextStep, previousStep } from './wizard-steps'
import { RevisionInput } from '~/components/ui/revision-input'

/**
 * Next and Back of a wizard step: submit buttons of the step's own form, so what was typed is
 * saved either way and both work without JavaScript. Next comes first in the form, so Enter in a
 * field moves on rather than back; Back skips the browser's checks (`formNoValidate`), as going
 * back must never be blocked by a field still to fix.
 */
/** `revision`: the draft's revision the step was drawn with (expectedRevision), or the current one after a conflict. */
export function WizardButtons({ step, revision, back = true }: { step: ScreenStep; revision: number; back?: boolean }) {
  return (
    <div className="flex flex-wrap items-center gap-3 border-t border-border pt-4">
      <input type="hidden" name="step" value={step} />
      <RevisionInput revision={revision} />
      <SubmitButton intent="next" pendingLabel="Saving…">
        Next: {STEP_LABELS[nextStep(step)]}
      </SubmitButton>
      {back ? (
        <SubmitButton intent="back" variant="secondary" formNoValidate pendingLabel="Going back…">
          Back: {STEP_LABELS[previousStep(step)]}
        </SubmitButton>
      ) : null}
    </div>
  )
}
