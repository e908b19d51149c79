import { CodeText } from '~/components/ui/code-text'
import { type ReactNode, useId } from 'react'
import { Form, Link } from 'react-router'
import { StateBadge, StatusText } from '~/components/documents/document-badges'
import { Button } from '~/components/ui/button'
import { CsrfInput } from '~/components/ui/csrf-input'
import { DataTable } from '~/components/ui/data-table'
import { EmptyState } from '~/components/ui/empty-state'
import { ErrorList } from '~/components/ui/error-list'
import { Field } from '~/components/ui/field'
import { SelectField } from '~/components/ui/select-field'
import { type DocumentsQuery, isSearching } from '~/lib/documents/query'
import { SUITABILITY } from '~/lib/documents/rules'
import { CDE_STATES, type DocumentSummary, type SearchPage } from '~/lib/documents/types'
import { documentPage } from './transmittal-paths'

export type PickerQuery = Pick<DocumentsQuery, 'q' | 'discipline' | 'status' | 'state' | 'page'>

/** A picked revision travels as `documentId.revisionId`: the action replaces another revision of the same document with it. */
export const PICK_FIELD = 'pick'
export const pickValue = (documentId: string, revisionId: string) => `${documentId}.${revisionId}`

/**
 * Choosing revisions from a project's documents (the wizard's first step, a draft set): a GET
 * search form (text, discipline, status, state; everything in the address, so it works without
 * JavaScript and pages like any list), then the matching documents, each with a checkbox for its
 * current revision, in a POST form whose buttons the caller gives (`children`). Documents already
 * chosen at that revision say so instead.
 */
export function DocumentPicker({
  action,
  hidden,
  query,
  list,
  disciplines,
  chosen,
  errors,
  children,
}: {
  /** The screen's path: the search stays on it. */
  action: string
  /** What the search keeps (projectId, transmittalId). */
  hidden: Readonly<Record<string, string>>
  query: PickerQuery
  list: SearchPage | null
  disciplines: ReadonlyArray<{ code: string; description: string }>
  /** documentId → the revision chosen now. */
  chosen: ReadonlyMap<string, string>
  errors?: readonly string[] | undefined
  children: ReactNode
}) {
  const errorId = useId()
  const searching = isSearching({ ...query, projectId: null, folderId: null })
  const clear = `${action}?${new URLSearchParams(hidden)}`
  return (
    <div className="flex flex-col gap-4">
      <Form
        method="get"
        action={action}
        role="search"
        aria-label="Find documents"
        key={`${query.q}|${query.discipline}|${query.status}|${query.state}`}
        className="flex flex-col gap-3 rounded-lg border border-border bg-surface p-4"
      >
        {Object.entries(hidden).map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        <Field
          label="Find documents"
          help="Number (or part of it), title or metadata. Each document offers its current revision."
          inputProps={{ type: 'search', name: 'q', id: 'picker-q', defaultValue: query.q, maxLength: 100, autoComplete: 'off', spellCheck: false }}
        />
        <div className="grid gap-3 sm:grid-cols-3">
          <SelectField
            label="Discipline"
            selectProps={{ name: 'discipline', id: 'picker-discipline', defaultValue: query.discipline }}
            placeholder="Any discipline"
            options={disciplines.map((d) => ({ value: d.code, label: `${d.code} ${d.description}` }))}
          />
          <SelectField
            label="Status"
            selectProps={{ name: 'status', id: 'picker-status', defaultValue: query.status }}
            placeholder="Any status"
            options={SUITABILITY.map((s) => ({ value: s.code, label: `${s.code} ${s.label}` }))}
          />
          <SelectField
            label="State"
            selectProps={{ name: 'state', id: 'picker-state', defaultValue: query.state }}
            placeholder="Any state"
            options={CDE_STATES.map((state) => ({ value: state, label: state === 'WIP' ? 'Work in progress' : state }))}
          />
        </div>
        <div className="flex flex-wrap items-center gap-3">
          <Button type="submit" variant="secondary">
            Find
          </Button>
          {searching ? (
            <Link to={clear} className="text-sm text-primary-strong underline underline-offset-2">
              Show all documents
            </Link>
          ) : null}
        </div>
      </Form>
      <Form method="post" aria-label="Choose revisions" className="flex flex-col gap-4">
        <CsrfInput />
        <fieldset aria-describedby={errors?.length ? errorId : undefined} className="flex min-w-0 flex-col gap-2">
          <legend className="sr-only">Documents to choose from</legend>
          <ErrorList id={errorId} errors={errors} />
          {list ? (
            <DataTable
              caption={searching ? `Documents matching, ${list.total} in all` : `Documents of the project, ${list.total} in all`}
              columns={[
                {
                  key: 'pick',
                  header: <span className="sr-only">Choose</span>,
                  cell: (doc: DocumentSummary) => <PickCell doc={doc} chosen={chosen.get(doc.id)} />,
                },
                {
                  key: 'number',
                  header: 'Document',
                  rowHeader: true,
                  cell: (doc) => (
                    <Link to={documentPage(doc.id)} className="font-mono text-primary-strong underline underline-offset-2">
                      <CodeText code={doc.number} />
                    </Link>
                  ),
                },
                { key: 'title', header: 'Title', cell: (doc) => doc.title, hideOnMobile: true },
                { key: 'revision', header: 'Current revision', cell: (doc) => (doc.currentRevision ? <span className="font-mono">{doc.currentRevision.code}</span> : 'None yet') },
                { key: 'status', header: 'Suitability', cell: (doc) => (doc.currentRevision ? <StatusText code={doc.currentRevision.status} /> : null), hideOnMobile: true },
                { key: 'state', header: 'State', cell: (doc) => <StateBadge state={doc.state} />, hideOnMobile: true },
              ]}
              rows={list.items}
              rowKey={(doc) => doc.id}
              emptyState={
                <EmptyState heading={searching ? 'No documents match.' : 'This project has no documents yet.'} headingLevel={3}>
                  {searching ? 'Try part of the number, another word of the title, or fewer filters.' : 'Documents uploaded under Documents can be issued here.'}
                </EmptyState>
              }
              pagination={{
                previous: query.page > 1 ? { page: String(query.page - 1) } : null,
                next: query.page * list.pageSize < list.total ? { page: String(query.page + 1) } : null,
                summary: `Page ${query.page} of ${Math.max(1, Math.ceil(list.total / list.pageSize))}`,
                label: 'Pages of documents',
              }}
            />
          ) : (
            <p className="text-sm text-muted">The documents could not be listed just now.</p>
          )}
        </fieldset>
        {children}
      </Form>
    </div>
  )
}

function PickCell({ doc, chosen }: { doc: DocumentSummary; chosen: string | undefined }) {
  const revision = doc.currentRevision
  if (!revision) return <span className="text-sm text-muted">No revision</span>
  if (chosen === revision.id) return <span className="text-sm font-medium text-success">Chosen</span>
  return (
    <input
      type="checkbox"
      name={PICK_FIELD}
      value={pickValue(doc.id, revision.id)}
      aria-label={`Choose ${doc.number} ${revision.code}${chosen ? ' instead of the revision chosen now' : ''}`}
      className="size-5 cursor-pointer accent-primary"
    />
  )
}
