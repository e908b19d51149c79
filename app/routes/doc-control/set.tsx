import { revalidateAfterConflict } from '~/lib/revalidate-after-conflict'
import { data, Link, useActionData, useLocation } from 'react-router'
import { SetDeriveForm, SetDetailsForm, SetPublishForm } from '~/components/doc-control/set-forms'
import { purposeLabel, SetStatusBadge } from '~/components/doc-control/transmittal-labels'
import { setPage, setsPage, wizardPage } from '~/components/doc-control/transmittal-paths'
import { RevisionTable } from '~/components/doc-control/transmittal-revision-table'
import { DocumentPicker } from '~/components/doc-control/wizard-document-picker'
import { chosenMap } from '~/components/doc-control/wizard-picks'
import { resultFor, revisionFor, type ReportingActionData } from '~/components/reporting/report-action'
import { Banner } from '~/components/ui/banner'
import { ButtonLink } from '~/components/ui/button-link'
import { Card } from '~/components/ui/card'
import { EmptyState } from '~/components/ui/empty-state'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { SubmitButton } from '~/components/ui/submit-button'
import { useLiveRevalidation } from '~/islands/realtime/use-live-revalidation'
import { createServerApi } from '~/lib/api.server'
import type { DocumentSet } from '~/lib/doc-control/types'
import { formatDateTime } from '~/lib/format'
import { useLocale } from '~/root'
import type { Route } from './+types/set'
import { addRevisions, deriveSet, editSet, findSet, loadSetPage, publishSet, removeRevision } from './set.server'

/**
 * One set (docs/doc-control.md "Sets"). A draft: its revisions (one per document), chosen from the
 * project's documents, its details, and "Publish…" with the publish body. A published set is
 * read-only and says who published it, when and why; a new draft can be derived from it, and it
 * can be issued with the wizard.
 */
export async function loader({ request, context, params }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  return data(await loadSetPage(api, request, params.setId, responseHeaders), { headers: responseHeaders })
}

export async function action({ request, context, params }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const set = await findSet(api, params.setId, responseHeaders)
  switch (String(formData.get('intent') ?? '')) {
    case 'add-revisions':
      return addRevisions(api, set, formData, request, responseHeaders)
    case 'remove-revision':
      return removeRevision(api, set, formData, request, responseHeaders)
    case 'edit':
      return editSet(api, set, formData, responseHeaders)
    case 'publish':
      return publishSet(api, set, formData, responseHeaders)
    case 'derive':
      return deriveSet(api, set, formData, responseHeaders)
    default:
      throw data('Unknown intent', { status: 400 })
  }
}

export default function SetScreen({ loaderData }: Route.ComponentProps) {
  const { picker, notice: loadNotice } = loaderData
  const set = loaderData.set as DocumentSet
  const derivedFrom = loaderData.derivedFrom as DocumentSet | null
  const actionData = useActionData<typeof action>() as ReportingActionData | undefined
  const locale = useLocale()
  const location = useLocation()
  const notice = actionData?.notice ?? loadNotice
  const draft = set.status === 'draft'
  // Someone else publishing or changing the set meanwhile shows here (a published set takes no more changes).
  useLiveRevalidation((change) => change.entityType === 'DocumentSet' && change.entityId === set.id)
  return (
    <>
      <p className="mb-2 text-sm">
        <Link to={setsPage(set.projectId)} className="text-primary-strong underline underline-offset-2">
          ← Sets
        </Link>
      </p>
      <PageHeader
        title={set.name}
        description={set.description ?? undefined}
        actions={!draft ? <ButtonLink to={wizardPage(set.projectId, { setId: set.id })}>Issue this set</ButtonLink> : undefined}
      />
      {notice ? (
        <Banner tone="critical" title="That did not work" correlationId={notice.correlationId} className="mb-6">
          {notice.message}
        </Banner>
      ) : null}
      {!draft ? (
        <Banner tone="info" title="This set is published" className="mb-6">
          It is read-only: its revisions stay as they were published. Derive a new set to change it.
        </Banner>
      ) : null}
      <div className="flex flex-col gap-8">
        <Card>
          <h2 className="sr-only">Details</h2>
          <dl className="grid gap-x-6 gap-y-3 text-sm sm:grid-cols-[max-content_1fr]">
            <dt className="font-medium text-muted">Status</dt>
            <dd>
              <SetStatusBadge status={set.status} />
            </dd>
            {set.published ? (
              <>
                <dt className="font-medium text-muted">Published</dt>
                <dd>
                  {formatDateTime(set.published.at, locale)}
                  {set.published.by ? ` by ${set.published.by.displayName}` : ''}
                </dd>
                <dt className="font-medium text-muted">Purpose</dt>
                <dd>{purposeLabel(set.published.purpose)}</dd>
                <dt className="font-medium text-muted">Message</dt>
                <dd className="break-words whitespace-pre-line">{set.published.message}</dd>
              </>
            ) : null}
            {derivedFrom ? (
              <>
                <dt className="font-medium text-muted">Derived from</dt>
                <dd>
                  <Link to={setPage(derivedFrom.id, set.projectId)} className="text-primary-strong underline underline-offset-2">
                    {derivedFrom.name}
                  </Link>
                </dd>
              </>
            ) : null}
          </dl>
        </Card>
        <Section
          title={`Revisions (${set.revisions.length})`}
          description={draft ? 'One revision of each document. Ticking another revision of a document replaces it.' : undefined}
        >
          <RevisionTable
            caption="Revisions of the set"
            revisions={set.revisions}
            removeIntent={draft ? 'remove-revision' : undefined}
            emptyState={
              <EmptyState heading="No revisions yet." headingLevel={3}>
                {draft ? 'Tick documents below to add their current revision.' : null}
              </EmptyState>
            }
          />
        </Section>
        {draft && picker ? (
          <>
            <Section title="Add revisions" description="Find the project’s documents and tick them; their current revision is added.">
              <DocumentPicker
                action={`/doc-control/sets/${set.id}`}
                hidden={{ projectId: set.projectId }}
                {...picker}
                chosen={chosenMap(set.revisions)}
                errors={resultFor(actionData, 'add-revisions')?.error?.pick ?? undefined}
              >
                <div>
                  <SubmitButton intent="add-revisions" pendingLabel="Adding…">
                    Add ticked revisions
                  </SubmitButton>
                </div>
              </DocumentPicker>
            </Section>
            <Section title="Publish">
              {set.revisions.length > 0 ? (
                <SetPublishForm key={location.key} set={set} lastResult={resultFor(actionData, 'publish')} />
              ) : (
                <p className="text-sm text-muted">Add at least one revision before publishing.</p>
              )}
            </Section>
            <Section title="Edit details">
              <SetDetailsForm key={location.key} intent="edit" set={set} revision={revisionFor(actionData, 'edit', undefined, set.revision)} lastResult={resultFor(actionData, 'edit')} />
            </Section>
          </>
        ) : (
          <Section title="Derive new set" description="A new draft with the same revisions, to change and publish again.">
            <SetDeriveForm set={set} lastResult={resultFor(actionData, 'derive')} />
          </Section>
        )}
      </div>
    </>
  )
}

export function meta({ data: loaderData }: Route.MetaArgs) {
  return [{ title: loaderData ? `${loaderData.set.name} · Sets · Site Portal` : 'Set · Site Portal' }]
}

/** After a save refused as stale the screen reads its data again (app/lib/revalidate-after-conflict.ts). */
export const shouldRevalidate = revalidateAfterConflict
