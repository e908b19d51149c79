import { revalidateAfterConflict } from '~/lib/revalidate-after-conflict'
import { data, useActionData, useLocation } from 'react-router'
import { type DocumentsActionData, UPLOAD_FINISHED } from '~/components/documents/document-action'
import { CodeText } from '~/components/ui/code-text'
import { DocumentBreadcrumbs } from '~/components/documents/document-breadcrumbs'
import { DocumentFacts } from '~/components/documents/document-facts'
import { DocumentReviews } from '~/components/documents/document-reviews'
import { REVIEW_TEMPLATE_PARAM } from '~/lib/doc-control/review-params'
import { MetadataForm } from '~/components/documents/metadata-form'
import { RevisionList } from '~/components/documents/revision-list'
import { useResumableForm } from '~/components/documents/use-resumable-form'
import { resultFor, revisionFor } from '~/components/reporting/report-action'
import { Banner } from '~/components/ui/banner'
import { Card } from '~/components/ui/card'
import { ConfirmDialog } from '~/components/ui/confirm-dialog'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { useLiveRevalidation } from '~/islands/realtime/use-live-revalidation'
import { createServerApi } from '~/lib/api.server'
import { documentChanged } from '~/lib/documents/live'
import { atLeast } from '~/lib/documents/rules'
import { useLocale } from '~/root'
import type { Route } from './+types/document'
import { documentPage, uploadFinished } from './documents-actions.server'
import { editDetails, loadDocumentPage, newRevision, renumber, saveMetadata, savePermissions, setArchived } from './documents-document.server'
import { loadDocumentReviews, startReview } from './doc-control/workflow-start.server'
import { deferred, partsBeforeNavigation } from '~/components/ui/deferred'

// The forms hydrate after the rest of the screen (app/components/ui/deferred.tsx): the details,
// revisions and reviews do not need the form library.
const loadRevisionForm = async () => (await import('~/components/documents/revision-form')).RevisionForm
const RevisionForm = deferred(loadRevisionForm, import.meta.env.SSR ? await loadRevisionForm() : undefined)
const loadDocumentEditForm = async () => (await import('~/components/documents/document-edit-form')).DocumentEditForm
const DocumentEditForm = deferred(loadDocumentEditForm, import.meta.env.SSR ? await loadDocumentEditForm() : undefined)
const loadDocumentRenumberForm = async () => (await import('~/components/documents/document-renumber-form')).DocumentRenumberForm
const DocumentRenumberForm = deferred(loadDocumentRenumberForm, import.meta.env.SSR ? await loadDocumentRenumberForm() : undefined)
const loadRenumberHistory = async () => (await import('~/components/documents/document-renumber-form')).RenumberHistory
const RenumberHistory = deferred(loadRenumberHistory, import.meta.env.SSR ? await loadRenumberHistory() : undefined)
const loadDocumentPermissionsForm = async () => (await import('~/components/documents/document-permissions-form')).DocumentPermissionsForm
const DocumentPermissionsForm = deferred(loadDocumentPermissionsForm, import.meta.env.SSR ? await loadDocumentPermissionsForm() : undefined)
await partsBeforeNavigation(RevisionForm, DocumentEditForm, DocumentRenumberForm, RenumberHistory, DocumentPermissionsForm)

/**
 * One document (/documents/{documentId}; docs/documents.md "Screens"): where it is, its state, its
 * revisions newest first (the current one marked, superseded ones saying by which), and the forms
 * the caller's level allows: a new revision (upload), metadata and details (edit), archive and
 * permissions (manage).
 */
export async function loader({ request, context, params }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  const page = await loadDocumentPage(api, params.documentId, responseHeaders)
  // Its reviews and "Start review" (issue 12, docs/doc-control.md).
  const reviews = await loadDocumentReviews(api, page.doc, new URL(request.url))
  return data({ ...page, reviews }, { headers: responseHeaders })
}

export async function action({ request, context, params }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const intent = String(formData.get('intent') ?? '')
  if (intent === UPLOAD_FINISHED) return uploadFinished(api, formData, responseHeaders, (doc, code) => `Revision ${code} of ${doc.number} uploaded.`)
  // Every other form needs the document as it is now: its current revision, its project's fields.
  const { doc, metadataFields } = await loadDocumentPage(api, params.documentId, responseHeaders)
  switch (intent) {
    case 'revision':
      return newRevision(api, doc, formData, responseHeaders)
    case 'metadata':
      return saveMetadata(api, doc, metadataFields, formData, responseHeaders)
    case 'edit':
      return editDetails(api, doc, formData, responseHeaders)
    case 'renumber':
      return renumber(api, doc, formData, responseHeaders)
    case 'archive':
    case 'restore':
      return setArchived(api, doc, intent === 'archive', responseHeaders)
    case 'permissions':
      return savePermissions(api, { of: 'document', id: doc.id, page: documentPage(doc.id) }, formData, responseHeaders)
    case 'start-review':
      return startReview(api, doc, formData, responseHeaders)
    default:
      throw data('Unknown intent', { status: 400 })
  }
}

export default function DocumentPage({ loaderData }: Route.ComponentProps) {
  const { doc, projectName, metadataFields, folders, permissions, members, loadNotice, reviews } = loaderData
  useLiveRevalidation(documentChanged(doc.id))
  const actionData = useActionData<typeof action>() as DocumentsActionData | undefined
  const location = useLocation()
  const locale = useLocale()
  const resumable = useResumableForm({ intent: 'revision', refusedGoesToAction: false })
  const archived = doc.state === 'Archived'
  const can = {
    upload: !archived && atLeast(doc.access, 'upload'),
    edit: !archived && atLeast(doc.access, 'edit'),
    manage: atLeast(doc.access, 'manage'),
    // The rule book: a locked number changes only by Renumber, for whoever manages the document.
    renumber: !archived && doc.numberLocked && atLeast(doc.access, 'manage'),
  }
  const notice = actionData?.notice ?? resumable.answer?.notice ?? loadNotice
  return (
    <>
      <DocumentBreadcrumbs projectId={doc.projectId} projectName={projectName} folders={doc.breadcrumbs} current={doc.number} />
      <PageHeader title={<span className="font-mono"><CodeText code={doc.number} /></span>} description={doc.title} actions={can.manage ? <ArchiveAction number={doc.number} archived={archived} /> : undefined} />
      {notice ? (
        <Banner tone="critical" title="That did not work" correlationId={notice.correlationId} className="mb-6">
          {notice.message}
        </Banner>
      ) : null}
      {archived ? (
        <Banner tone="warning" title="This document is archived" className="mb-6">
          It is read-only, with its whole history. {can.manage ? 'Bring it back to change it.' : 'A manager can bring it back.'}
        </Banner>
      ) : null}
      <div className="grid gap-8 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <div className="flex min-w-0 flex-col gap-8">
          <Card>
            <h2 className="sr-only">Details</h2>
            <DocumentFacts doc={doc} locale={locale} />
          </Card>
          <Section title="Revisions" description="Newest first. Superseded revisions stay in the history and can still be opened.">
            <RevisionList revisions={doc.revisions} locale={locale} />
          </Section>
          <DocumentReviews doc={doc} reviews={reviews} templateParam={REVIEW_TEMPLATE_PARAM} lastResult={resultFor(actionData, 'start-review')} locale={locale} />
          {can.upload ? (
            <Section title="New revision" description="It becomes the current revision; the one before it is marked superseded.">
              <div className="max-w-3xl">
                <RevisionForm
                  // Not the location: a save of another form on this page must not drop a file on its way.
                  key={doc.currentRevision?.id ?? 'none'}
                  currentCode={doc.currentRevision?.code ?? null}
                  codes={doc.revisions.map((r) => r.code)}
                  status={doc.status}
                  lastResult={resultFor(resumable.answer ?? actionData, 'revision')}
                  resumable={resumable}
                />
              </div>
            </Section>
          ) : null}
        </div>
        <div className="flex min-w-0 flex-col gap-8">
          {metadataFields.length > 0 ? (
            <Section title="Metadata" description={can.edit ? 'The project’s fields for this document.' : undefined}>
              <MetadataForm
                key={location.key}
                fields={metadataFields}
                values={doc.metadata}
                canEdit={can.edit}
                revision={revisionFor(actionData, 'metadata', undefined, doc.revision)}
                lastResult={resultFor(actionData, 'metadata')}
                locale={locale}
              />
            </Section>
          ) : null}
          {can.edit ? (
            <Section
              title="Edit details"
              description={
                doc.numberLocked
                  ? 'Published or sent: the number, discipline and type are locked. A document controller changes them with Renumber.'
                  : 'A new number is checked against the project’s naming standard.'
              }
            >
              <DocumentEditForm
                key={location.key}
                doc={doc}
                folders={folders}
                projectName={projectName}
                revision={revisionFor(actionData, 'edit', undefined, doc.revision)}
                lastResult={resultFor(actionData, 'edit')}
              />
            </Section>
          ) : null}
          {can.renumber ? (
            <Section title="Renumber" description="Changes the number of a published or sent document, with a reason. Everyone who received it by transmittal is told.">
              <DocumentRenumberForm key={location.key} doc={doc} lastResult={resultFor(actionData, 'renumber')} />
            </Section>
          ) : null}
          {doc.renumbers.length > 0 ? (
            <Section title="Number history">
              <RenumberHistory renumbers={doc.renumbers} locale={locale} />
            </Section>
          ) : null}
          {can.manage && permissions ? (
            <Section title="Permissions" description="Who may view, upload, edit or manage this document. The entry nearest the document decides.">
              <DocumentPermissionsForm
                key={location.key}
                permissions={permissions}
                members={members}
                lastResult={resultFor(actionData, 'permissions')}
                revision={actionData?.intent === 'permissions' ? actionData.revision : undefined}
                kept={actionData?.intent === 'permissions' ? actionData.permissionsKept : undefined}
              />
            </Section>
          ) : null}
        </div>
      </div>
    </>
  )
}

function ArchiveAction({ number, archived }: { number: string; archived: boolean }) {
  if (archived) {
    return (
      // Keyed apart from the archive dialog: the same <details> would come back still open.
      <ConfirmDialog key="restore" triggerLabel="Bring back…" title={`Bring ${number} back?`} confirmLabel="Yes, bring it back" pendingLabel="Bringing back…" intent="restore" tone="primary">
        It takes new revisions and changes again.
      </ConfirmDialog>
    )
  }
  return (
    <ConfirmDialog key="archive" triggerLabel="Archive…" title={`Archive ${number}?`} confirmLabel="Yes, archive document" pendingLabel="Archiving…" intent="archive">
      It becomes read-only and takes no new revisions. Its history stays, nothing is deleted, and a manager can bring it back.
    </ConfirmDialog>
  )
}

export function meta({ data: loaderData }: Route.MetaArgs) {
  return [{ title: loaderData ? `${loaderData.doc.number} ${loaderData.doc.title} · Site Portal` : 'Document · Site Portal' }]
}

/** After a save refused as stale the screen reads its data again (app/lib/revalidate-after-conflict.ts). */
export const shouldRevalidate = revalidateAfterConflict
