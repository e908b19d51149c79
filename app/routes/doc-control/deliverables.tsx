import { revalidateAfterConflict } from '~/lib/revalidate-after-conflict'
import { data, Form, Link, useActionData, useLocation } from 'react-router'
import { DeliverableForm } from '~/components/doc-control/deliverables-form'
import { DeliverablesImportForm, DeliverablesImportReport } from '~/components/doc-control/deliverables-import'
import { useCanManage } from '~/components/doc-control/parties-abilities'
import { loadProjectChoice } from '~/components/doc-control/project-choice.server'
import { noticeOf, resultFor, revisionFor } from '~/components/reporting/report-action'
import { Badge, type BadgeTone } from '~/components/ui/badge'
import { Banner } from '~/components/ui/banner'
import { Button, buttonClasses } from '~/components/ui/button'
import { ButtonLink } from '~/components/ui/button-link'
import { Card } from '~/components/ui/card'
import { ConfirmDialog } from '~/components/ui/confirm-dialog'
import { DataTable, type DataTableColumn } from '~/components/ui/data-table'
import { EmptyState } from '~/components/ui/empty-state'
import { Field } from '~/components/ui/field'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { createServerApi } from '~/lib/api.server'
import { DELIVERABLE_FLAGS, type Deliverable, type DeliverableFlag, type Party } from '~/lib/doc-control/types'
import { formatDate, formatNumber } from '~/lib/format'
import { DeliverableFilterSchema } from '~/lib/schemas/doc-control'
import { useLocale } from '~/root'
import type { Route } from './+types/deliverables'
import { createDeliverable, deleteDeliverable, type DeliverablesActionData, importDeliverables, updateDeliverable } from './deliverables.server'
import { projectAccess, requireProjectId } from './registers.server'

/**
 * Deliverables (docs/doc-control.md "Screens"): the planned register (number, title, responsible
 * party, a planned date per milestone) against what was issued, flagged issued, on track, late or
 * missing; filtered by flag and text, paged, all in the address. Managers add, change and delete
 * deliverables and import a CSV; everyone exports it.
 */
const PAGE_SIZE = 25

const FLAG_LABELS: Record<DeliverableFlag, string> = { issued: 'Issued', 'on-track': 'On track', late: 'Late', missing: 'Missing' }
const FLAG_TONES: Record<DeliverableFlag, BadgeTone> = { issued: 'success', 'on-track': 'info', late: 'warning', missing: 'critical' }

export async function loader({ request, context }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  const choice = await loadProjectChoice(api, request, responseHeaders)
  const url = new URL(request.url)
  const filter = DeliverableFilterSchema.parse(Object.fromEntries(url.searchParams))
  const editId = url.searchParams.get('edit')
  if (!choice.project)
    return data({ ...choice, filter, register: null, parties: [] as Party[], access: null, example: '', editId: null, loadNotice: null }, { headers: responseHeaders })
  const query = new URLSearchParams({ page: String(filter.page ?? 1), pageSize: String(PAGE_SIZE) })
  if (filter.flag) query.set('flag', filter.flag)
  if (filter.q) query.set('q', filter.q)
  const [register, parties, access, naming] = await Promise.all([
    api.GET('/api/projects/{id}/deliverables', { path: { id: choice.project.id }, query: new URLSearchParams(query) }),
    api.GET('/api/projects/{id}/parties', { path: { id: choice.project.id } }),
    projectAccess(api, choice.project.id),
    api.GET('/api/projects/{id}/naming-standard', { path: { id: choice.project.id } }),
  ])
  return data(
    {
      ...choice,
      filter,
      register: register.ok ? register.data : null,
      parties: parties.ok ? parties.data.items : [],
      access,
      example: naming.ok ? naming.data.example : '',
      editId,
      loadNotice: register.ok ? null : noticeOf(register.error),
    },
    { headers: responseHeaders },
  )
}

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const projectId = requireProjectId(request)
  // Back to the register as it was filtered, without an open edit form.
  const url = new URL(request.url)
  url.searchParams.delete('edit')
  const back = `/doc-control/deliverables?${url.searchParams}`
  const intent = String(formData.get('intent') ?? '')
  switch (intent) {
    case 'create-deliverable':
      return createDeliverable(api, projectId, formData, responseHeaders, back)
    case 'update-deliverable':
      return updateDeliverable(api, formData, responseHeaders, back)
    case 'delete-deliverable':
      return deleteDeliverable(api, formData, responseHeaders, back)
    case 'import-csv':
      return importDeliverables(api, projectId, formData, responseHeaders, back)
    default:
      throw data('Unknown intent', { status: 400 })
  }
}

export default function Deliverables({ loaderData }: Route.ComponentProps) {
  const { project, filter, register, parties, access, example, editId, loadNotice } = loaderData
  const actionData = useActionData<typeof action>() as DeliverablesActionData | undefined
  const location = useLocation()
  const locale = useLocale()
  const canManage = useCanManage(access)
  const notice = actionData?.notice ?? loadNotice
  const partyName = new Map(parties.map((p) => [p.id, p.name]))
  const base = project ? new URLSearchParams({ projectId: project.id }) : new URLSearchParams()
  const withoutEdit = new URLSearchParams(location.search)
  withoutEdit.delete('edit')
  const listPath = `/doc-control/deliverables?${withoutEdit}`
  const editing = canManage && editId ? register?.items.find((d) => d.id === editId) : undefined

  const columns: Array<DataTableColumn<Deliverable>> = [
    {
      key: 'number',
      header: 'Number',
      rowHeader: true,
      cell: (d) =>
        d.documentId ? (
          <Link to={`/documents/${encodeURIComponent(d.documentId)}`} className="font-medium break-all text-primary-strong underline underline-offset-2">
            {d.number}
          </Link>
        ) : (
          <span className="font-medium break-all">{d.number}</span>
        ),
    },
    { key: 'title', header: 'Title', cell: (d) => <span className="break-words">{d.title}</span> },
    { key: 'party', header: 'Responsible', hideOnMobile: true, cell: (d) => (d.partyId ? (partyName.get(d.partyId) ?? '—') : '—') },
    {
      key: 'planned',
      header: 'Planned',
      cell: (d) =>
        d.milestones.length === 0 ? (
          <span className="text-muted">No dates</span>
        ) : (
          <ul className="flex flex-col gap-0.5">
            {[...d.milestones]
              .sort((a, b) => a.plannedDate.localeCompare(b.plannedDate))
              .map((m) => (
                <li key={m.name} className="whitespace-nowrap">
                  {m.name}: {formatDate(m.plannedDate, locale)}
                </li>
              ))}
          </ul>
        ),
    },
    { key: 'issued', header: 'First issued', cell: (d) => (d.firstIssuedAt ? formatDate(d.firstIssuedAt, locale) : <span className="text-muted">Not yet</span>) },
    { key: 'flag', header: 'Flag', cell: (d) => <Badge tone={FLAG_TONES[d.flag]}>{FLAG_LABELS[d.flag]}</Badge> },
  ]
  if (canManage) {
    columns.push({
      key: 'actions',
      header: 'Actions',
      cell: (d) => {
        const edit = new URLSearchParams(withoutEdit)
        edit.set('edit', d.id)
        return (
          <div className="flex flex-wrap items-start gap-2">
            <ButtonLink to={`/doc-control/deliverables?${edit}`} variant="secondary" size="sm" aria-label={`Change ${d.number}`}>
              Change
            </ButtonLink>
            <ConfirmDialog
              triggerLabel="Delete…"
              title={`Delete ${d.number} from the register?`}
              confirmLabel="Yes, delete deliverable"
              pendingLabel="Deleting…"
              intent="delete-deliverable"
              fields={{ deliverableId: d.id }}
            >
              Only the plan goes: documents with this number stay as they are.
            </ConfirmDialog>
          </div>
        )
      },
    })
  }

  const page = register?.page ?? 1
  const pages = register ? Math.max(1, Math.ceil(register.total / register.pageSize)) : 1
  return (
    <>
      <PageHeader
        title="Deliverables"
        description="The planned document register against what was actually issued."
        actions={
          project ? (
            // A file download, not a screen: a plain link the browser saves.
            <a href={`/api/projects/${encodeURIComponent(project.id)}/deliverables/export`} download className={buttonClasses({ variant: 'secondary' })}>
              Export CSV
            </a>
          ) : undefined
        }
      />
      {!project ? (
        <EmptyState heading="Choose a project">Its deliverables register is shown here once you open it.</EmptyState>
      ) : (
        <div className="flex flex-col gap-6">
          {notice ? (
            <Banner tone="critical" title="That did not work" correlationId={notice.correlationId}>
              {notice.message}
            </Banner>
          ) : null}
          {actionData?.imported ? <DeliverablesImportReport report={actionData.imported} /> : null}
          {editing ? (
            <Card>
              <h2 className="mb-4 text-lg font-semibold break-words">Change {editing.number}</h2>
              <DeliverableForm
                key={editing.id}
                deliverable={editing}
                parties={parties}
                example={example}
                revision={revisionFor(actionData, 'update-deliverable', editing.id, editing.revision)}
                lastResult={resultFor(actionData, 'update-deliverable')}
                cancelTo={listPath}
              />
            </Card>
          ) : null}
          <div className="grid gap-8 xl:grid-cols-[minmax(0,3fr)_minmax(0,1fr)]">
            <div className="flex min-w-0 flex-col gap-4">
              {register ? (
                <nav aria-label="Flags" className="flex flex-wrap gap-2">
                  <FlagLink
                    base={base}
                    q={filter.q}
                    flag={undefined}
                    current={filter.flag}
                    label={`All (${formatNumber(
                      Object.values(register.counts).reduce((a, b) => a + b, 0),
                      locale,
                    )})`}
                  />
                  {DELIVERABLE_FLAGS.map((flag) => (
                    <FlagLink
                      key={flag}
                      base={base}
                      q={filter.q}
                      flag={flag}
                      current={filter.flag}
                      label={`${FLAG_LABELS[flag]} (${formatNumber(register.counts[flag], locale)})`}
                    />
                  ))}
                </nav>
              ) : null}
              <Form method="get" action="/doc-control/deliverables" aria-label="Search deliverables" className="flex flex-col gap-3 sm:flex-row sm:items-end">
                <input type="hidden" name="projectId" value={project.id} />
                {filter.flag ? <input type="hidden" name="flag" value={filter.flag} /> : null}
                <Field label="Number or title" className="sm:min-w-72" inputProps={{ type: 'search', name: 'q', defaultValue: filter.q ?? '', id: 'deliverables-q' }} />
                <Button type="submit" variant="secondary">
                  Search
                </Button>
              </Form>
              {register ? (
                <DataTable
                  caption={filter.flag ? `Deliverables: ${FLAG_LABELS[filter.flag].toLowerCase()}` : 'Deliverables'}
                  columns={columns}
                  rows={register.items}
                  rowKey={(d) => d.id}
                  pagination={{
                    previous: page > 1 ? { page: String(page - 1) } : null,
                    next: page < pages ? { page: String(page + 1) } : null,
                    summary: `Page ${page} of ${pages}`,
                    label: 'Deliverables pages',
                  }}
                  emptyState={
                    <EmptyState heading={filter.flag || filter.q ? 'No deliverables match' : 'No deliverables yet'}>
                      {filter.flag || filter.q
                        ? 'Clear the filter to see the whole register.'
                        : canManage
                          ? 'Add one with the form, or import a CSV.'
                          : 'A project manager plans the deliverables.'}
                    </EmptyState>
                  }
                />
              ) : null}
            </div>
            {canManage ? (
              <div className="flex flex-col gap-8">
                <Section title="Add a deliverable" description="A document the project plans to issue.">
                  <DeliverableForm key={location.key} parties={parties} example={example} lastResult={resultFor(actionData, 'create-deliverable')} />
                </Section>
                <Section title="Import CSV" description="Add or update many deliverables at once.">
                  <DeliverablesImportForm error={actionData?.intent === 'import-csv' ? actionData.importError : undefined} />
                </Section>
              </div>
            ) : null}
          </div>
        </div>
      )}
    </>
  )
}

function FlagLink({
  base,
  q,
  flag,
  current,
  label,
}: {
  base: URLSearchParams
  q: string | undefined
  flag: DeliverableFlag | undefined
  current: DeliverableFlag | undefined
  label: string
}) {
  const params = new URLSearchParams(base)
  if (flag) params.set('flag', flag)
  if (q) params.set('q', q)
  const active = flag === current
  return (
    <Link
      to={`/doc-control/deliverables?${params}`}
      aria-current={active ? 'page' : undefined}
      className={buttonClasses({ variant: active ? 'primary' : 'secondary', size: 'sm' })}
    >
      {label}
    </Link>
  )
}

export function meta() {
  return [{ title: 'Deliverables · Document control · Site Portal' }]
}

/** After a save refused as stale the screen reads its data again (app/lib/revalidate-after-conflict.ts). */
export const shouldRevalidate = revalidateAfterConflict
