import { Form } from 'react-router'
import { CsrfInput } from '~/components/ui/csrf-input'
import { EmptyState } from '~/components/ui/empty-state'
import { Section } from '~/components/ui/section'
import { SelectField } from '~/components/ui/select-field'
import { SubmitButton } from '~/components/ui/submit-button'
import type { DocumentSet, WorkflowRevision } from '~/lib/doc-control/types'
import type { SearchPage } from '~/lib/documents/types'
import { RevisionTable } from './transmittal-revision-table'
import { WizardButtons } from './wizard-buttons'
import { DocumentPicker, type PickerQuery } from './wizard-document-picker'
import { chosenMap } from './wizard-picks'

/**
 * Step 1: what is issued. The revisions chosen so far (each removable), a set's revisions to add
 * at once, and the project's documents to tick (their current revision), found by text and filters.
 * Next adds what is ticked before moving on, so a single pass "tick, Next" is enough.
 */
export function WizardRevisionsStep({
  revisions,
  sets,
  picker,
  errors,
  revision,
}: {
  /** The draft's revision Next saves against. */
  revision: number
  revisions: readonly WorkflowRevision[]
  sets: readonly DocumentSet[]
  picker: { action: string; hidden: Record<string, string>; query: PickerQuery; list: SearchPage | null; disciplines: ReadonlyArray<{ code: string; description: string }> }
  errors: { pick?: string[] | undefined; setId?: string[] | undefined }
}) {
  return (
    <div className="flex flex-col gap-8">
      <Section title={`Chosen revisions (${revisions.length})`} description="One revision of each document. Ticking another revision of a document replaces it.">
        <RevisionTable
          caption="Chosen revisions"
          revisions={revisions}
          removeIntent="remove-revision"
          emptyState={
            <EmptyState heading="No revisions chosen yet." headingLevel={3}>
              Tick documents below{sets.length > 0 ? ', or add the revisions of a set' : ''}.
            </EmptyState>
          }
        />
      </Section>
      {sets.length > 0 ? (
        <Section title="Add a set" description="All revisions of a set at once, e.g. a published “For construction” set.">
          <Form method="post" aria-label="Add a set" className="flex max-w-2xl flex-col gap-3 sm:flex-row sm:items-end">
            <CsrfInput />
            <SelectField
              label="Set"
              className="sm:min-w-72"
              selectProps={{ name: 'setId', id: 'wizard-set', required: true, defaultValue: '' }}
              placeholder="Choose a set"
              options={sets.map((set) => ({ value: set.id, label: `${set.name} (${set.status === 'published' ? 'published' : 'draft'}, ${revisionCount(set.revisions.length)})` }))}
              errors={errors.setId}
            />
            <SubmitButton intent="add-set" variant="secondary" pendingLabel="Adding…">
              Add its revisions
            </SubmitButton>
          </Form>
        </Section>
      ) : null}
      <Section title="Documents of the project" description="Tick the documents to issue; their current revision is added.">
        <DocumentPicker {...picker} chosen={chosenMap(revisions)} errors={errors.pick}>
          <div>
            <SubmitButton intent="add-revisions" variant="secondary" pendingLabel="Adding…">
              Add ticked revisions
            </SubmitButton>
          </div>
          <WizardButtons step="revisions" revision={revision} back={false} />
        </DocumentPicker>
      </Section>
    </div>
  )
}

function revisionCount(count: number): string {
  return count === 1 ? '1 revision' : `${count} revisions`
}
