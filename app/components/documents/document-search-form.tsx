import { Form, Link } from 'react-router'
import { Button } from '~/components/ui/button'
import { Field } from '~/components/ui/field'
import { SelectField } from '~/components/ui/select-field'
import { documentsHref, type DocumentsQuery } from '~/lib/documents/query'
import { SUITABILITY } from '~/lib/documents/rules'
import { CDE_STATES } from '~/lib/documents/types'

export type DisciplineOption = { code: string; description: string }

/**
 * The search box and filters of /documents: a GET form, so a search is a URL that works without
 * JavaScript and can be shared. The project and folder ride along as hidden fields; a new search
 * starts at its first page.
 */
export function DocumentSearchForm({ query, disciplines, scope }: { query: DocumentsQuery & { projectId: string }; disciplines: readonly DisciplineOption[]; scope: string }) {
  const searching = query.q !== '' || query.discipline !== '' || query.status !== '' || query.state !== ''
  return (
    <Form
      method="get"
      action="/documents"
      role="search"
      aria-label="Search documents"
      // defaultValue only applies when a control is created: a new URL makes new controls.
      key={`${query.projectId}|${query.folderId ?? ''}|${query.q}|${query.discipline}|${query.status}|${query.state}`}
      className="flex flex-col gap-3 rounded-lg border border-border bg-surface p-4"
    >
      <input type="hidden" name="projectId" value={query.projectId} />
      {query.folderId ? <input type="hidden" name="folderId" value={query.folderId} /> : null}
      <Field
        label="Search documents"
        help={`Number (or part of it), title or metadata, in ${scope}.`}
        inputProps={{ type: 'search', name: 'q', id: 'documents-q', defaultValue: query.q, maxLength: 100, autoComplete: 'off', spellCheck: false }}
      />
      <div className="grid gap-3 sm:grid-cols-3">
        <SelectField
          label="Discipline"
          selectProps={{ name: 'discipline', id: 'documents-discipline', defaultValue: query.discipline }}
          placeholder="Any discipline"
          options={disciplines.map((d) => ({ value: d.code, label: `${d.code} ${d.description}` }))}
        />
        <SelectField
          label="Status"
          selectProps={{ name: 'status', id: 'documents-status', defaultValue: query.status }}
          placeholder="Any status"
          options={SUITABILITY.map((s) => ({ value: s.code, label: `${s.code} ${s.label}` }))}
        />
        <SelectField
          label="State"
          selectProps={{ name: 'state', id: 'documents-state', defaultValue: query.state }}
          placeholder="Any state"
          options={CDE_STATES.map((state) => ({ value: state, label: state === 'WIP' ? 'Work in progress' : state }))}
        />
      </div>
      <div className="flex flex-wrap items-center gap-3">
        <Button type="submit" variant="secondary">
          Search
        </Button>
        {searching ? (
          <Link to={documentsHref({ projectId: query.projectId, folderId: query.folderId })} className="text-sm text-primary-strong underline underline-offset-2">
            Clear search
          </Link>
        ) : null}
      </div>
    </Form>
  )
}
