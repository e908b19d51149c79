import { Form, Link } from 'react-router'
import { CsrfInput } from '~/components/ui/csrf-input'
import { ErrorList } from '~/components/ui/error-list'
import { FormError } from '~/components/ui/form-error'
import { Section } from '~/components/ui/section'
import { SelectField } from '~/components/ui/select-field'
import { SubmitButton } from '~/components/ui/submit-button'
import type { DocumentSet, Transmittal } from '~/lib/doc-control/types'
import { formatDateTime } from '~/lib/format'
import { wizardPage } from './transmittal-paths'
import { STEP_LABELS, stepOf } from './wizard-steps'

/**
 * The wizard before a draft exists: start one (empty, or with the revisions of a set), or go on
 * with a draft left earlier, here or on another device.
 */
export function WizardStart({
  projectId,
  sets,
  setId,
  drafts,
  locale,
  errors,
}: {
  projectId: string
  sets: readonly DocumentSet[]
  setId: string | null
  drafts: readonly Transmittal[]
  locale: string
  errors: { form?: string[] | undefined; setId?: string[] | undefined }
}) {
  return (
    <div className="flex flex-col gap-8">
      <Section title="Start issuing" description="A draft transmittal is made now and kept as you go: you can leave and come back to it.">
        <Form method="post" aria-label="Start issuing" className="flex max-w-2xl flex-col gap-4">
          <CsrfInput />
          <FormError errors={errors.form} />
          {sets.length > 0 ? (
            <SelectField
              label="Start from a set (optional)"
              help="Its revisions are chosen for you; you can still add and remove."
              selectProps={{ name: 'setId', id: 'wizard-start-set', defaultValue: setId ?? '' }}
              placeholder="No set: choose revisions one by one"
              options={sets.map((set) => ({ value: set.id, label: `${set.name}${set.status === 'published' ? ' (published)' : ' (draft)'}` }))}
              errors={errors.setId}
            />
          ) : (
            <ErrorList errors={errors.setId} />
          )}
          <div>
            <SubmitButton intent="start" pendingLabel="Starting…">
              Start
            </SubmitButton>
          </div>
        </Form>
      </Section>
      {drafts.length > 0 ? (
        <Section title="Drafts to continue">
          <ul className="flex flex-col gap-2">
            {drafts.map((draft) => (
              <li key={draft.id} className="flex flex-col gap-1 rounded-md border border-border bg-surface px-4 py-3 sm:flex-row sm:items-center sm:justify-between">
                <Link to={wizardPage(projectId, { transmittalId: draft.id })} className="font-medium text-primary-strong underline underline-offset-2">
                  <span className="font-mono">{draft.number}</span> {draft.subject || 'No subject yet'}
                </Link>
                <span className="text-sm text-muted">
                  At “{STEP_LABELS[stepOf(draft.wizardStep)]}”, changed {formatDateTime(draft.updatedAt, locale)}
                </span>
              </li>
            ))}
          </ul>
        </Section>
      ) : null}
    </div>
  )
}
