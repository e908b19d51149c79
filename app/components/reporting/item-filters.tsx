import { Form, Link } from 'react-router'
import { buttonClasses } from '~/components/ui/button'
import { ButtonLink } from '~/components/ui/button-link'
import { CheckboxField } from '~/components/ui/checkbox-field'
import { cx } from '~/components/ui/class-names'
import { SelectField } from '~/components/ui/select-field'
import { STATUS_LABELS } from '~/lib/reporting/labels'
import {
  COLUMN_LABELS,
  GROUP_BYS,
  GROUP_LABELS,
  ITEM_COLUMNS,
  itemsHref,
  type ItemsQuery,
  type Layout,
  OUTSTANDING_STATUSES,
} from '~/lib/reporting/items-query'
import { type Member, type PackageInfo, type Project, projectTitle } from '~/lib/reporting/types'

export type FilterChoices = {
  projects: ReadonlyArray<Pick<Project, 'id' | 'title'>>
  packages: readonly PackageInfo[]
  members: readonly Member[]
  /** The title of the report the list is narrowed to, when it is. */
  reportTitle: string | null
}

const LAYOUT_LABELS: Record<Layout, string> = {
  auto: 'Automatic: cards on a phone, a table on a wider screen',
  table: 'Table',
  cards: 'Cards',
}

/**
 * The list's filters and display choices in one GET form: submitting it is following a link, so
 * the result has its own address, works without script, and can be saved as a view.
 */
export function ItemFilters({ query, choices }: { query: ItemsQuery; choices: FilterChoices }) {
  const active = activeFilters(query, choices).length
  return (
    <details className="group rounded-lg border border-border bg-surface">
      <summary className={cx(buttonClasses({ variant: 'plain' }), 'w-full justify-start px-4 list-none [&::-webkit-details-marker]:hidden')}>
        <span aria-hidden="true" className="inline-block transition-transform group-open:rotate-90">
          ▸
        </span>
        Filter and display{active > 0 ? ` (${active} active)` : ''}
      </summary>
      <Form method="get" action="/items" className="flex flex-col gap-5 border-t border-border p-4">
        {query.reportId ? <input type="hidden" name="report" value={query.reportId} /> : null}
        {query.compare.length > 0 ? <input type="hidden" name="compare" value={query.compare.join(',')} /> : null}
        <fieldset className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
          <legend className="mb-3 text-base font-semibold text-text">Filters</legend>
          <SelectField
            label="Project"
            selectProps={{ name: 'project', defaultValue: query.projectId ?? '' }}
            placeholder="All projects"
            options={projectOptions(query, choices)}
          />
          <SelectField
            label="Package"
            selectProps={{ name: 'package', defaultValue: query.packageKey ?? '' }}
            placeholder="All packages"
            options={choices.packages.map((p) => ({ value: p.key, label: p.active ? p.name : `${p.name} (inactive)` }))}
          />
          <SelectField
            label="Status"
            selectProps={{ name: 'status', defaultValue: query.status ?? '' }}
            placeholder="Open or close requested"
            options={OUTSTANDING_STATUSES.map((status) => ({ value: status, label: STATUS_LABELS[status] }))}
          />
          <SelectField
            label="Assignee"
            selectProps={{ name: 'assignee', defaultValue: query.assignee ?? '' }}
            placeholder="Anyone"
            options={[{ value: 'me', label: 'Me' }, ...choices.members.map((m) => ({ value: m.userId, label: m.displayName }))]}
          />
          <CheckboxField label="Only overdue items" inputProps={{ name: 'overdue', value: '1', defaultChecked: query.overdue }} className="sm:col-span-2" />
          <CheckboxField
            label="Only items waiting for my confirmation"
            help="Close requests on items you recorded: you confirm or reject them."
            inputProps={{ name: 'verifier', value: 'me', defaultChecked: query.verifier === 'me' }}
            className="sm:col-span-2"
          />
        </fieldset>
        <fieldset>
          <legend className="mb-3 text-base font-semibold text-text">Columns</legend>
          <div className="grid grid-cols-2 gap-x-4 gap-y-1 sm:grid-cols-3 lg:grid-cols-5">
            {ITEM_COLUMNS.map((column) => (
              <CheckboxField
                key={column}
                label={COLUMN_LABELS[column]}
                inputProps={{ name: 'col', value: column, defaultChecked: query.columns.includes(column) }}
                className="min-h-11 justify-center"
              />
            ))}
          </div>
        </fieldset>
        <div className="grid gap-4 sm:grid-cols-2">
          <SelectField
            label="Group by"
            selectProps={{ name: 'group', defaultValue: query.groupBy }}
            options={GROUP_BYS.map((group) => ({ value: group, label: GROUP_LABELS[group] }))}
          />
          <SelectField
            label="Layout"
            selectProps={{ name: 'layout', defaultValue: query.layout }}
            options={(Object.keys(LAYOUT_LABELS) as Layout[]).map((layout) => ({ value: layout, label: LAYOUT_LABELS[layout] }))}
          />
        </div>
        <div className="flex flex-wrap gap-2">
          <button type="submit" className={buttonClasses()}>
            Apply filters
          </button>
          <ButtonLink to="/items" variant="secondary">
            Reset
          </ButtonLink>
        </div>
      </Form>
    </details>
  )
}

function projectOptions(query: ItemsQuery, choices: FilterChoices) {
  const options = choices.projects.map((p) => ({ value: p.id, label: projectTitle(p.title) }))
  // An archived project is not in the active list, but a link or view may still narrow to it.
  if (query.projectId && !options.some((o) => o.value === query.projectId)) options.push({ value: query.projectId, label: 'The chosen project' })
  return options
}

type ActiveFilter = { key: string; label: string; without: Partial<ItemsQuery> }

function activeFilters(query: ItemsQuery, choices: FilterChoices): ActiveFilter[] {
  const filters: ActiveFilter[] = []
  const name = <T,>(list: readonly T[], match: (entry: T) => boolean, label: (entry: T) => string, fallback: string) => {
    const found = list.find(match)
    return found ? label(found) : fallback
  }
  if (query.projectId) {
    const label = name(choices.projects, (p) => p.id === query.projectId, (p) => projectTitle(p.title), 'chosen project')
    filters.push({ key: 'project', label: `Project: ${label}`, without: { projectId: null } })
  }
  if (query.reportId) filters.push({ key: 'report', label: `Report: ${choices.reportTitle ?? 'chosen report'}`, without: { reportId: null } })
  if (query.packageKey) {
    const key = query.packageKey
    filters.push({ key: 'package', label: `Package: ${name(choices.packages, (p) => p.key === key, (p) => p.name, key)}`, without: { packageKey: null } })
  }
  if (query.status) filters.push({ key: 'status', label: `Status: ${STATUS_LABELS[query.status]}`, without: { status: null } })
  if (query.assignee) {
    const label = query.assignee === 'me' ? 'me' : name(choices.members, (m) => m.userId === query.assignee, (m) => m.displayName, 'chosen member')
    filters.push({ key: 'assignee', label: `Assigned to ${label}`, without: { assignee: null } })
  }
  if (query.overdue) filters.push({ key: 'overdue', label: 'Overdue', without: { overdue: false } })
  if (query.verifier) filters.push({ key: 'verifier', label: 'Waiting for my confirmation', without: { verifier: null } })
  return filters
}

/** What narrows the list, each with a link that removes it: visible even while the form is folded. */
export function ActiveFilters({ query, choices }: { query: ItemsQuery; choices: FilterChoices }) {
  const filters = activeFilters(query, choices)
  if (filters.length === 0) return null
  return (
    <div className="flex flex-wrap items-center gap-2 text-sm">
      <span className="text-muted">Showing:</span>
      <ul className="flex flex-wrap gap-2">
        {filters.map((filter) => (
          <li key={filter.key} className="inline-flex items-center gap-1 rounded-full border border-border-strong bg-surface py-1 pr-1 pl-3">
            {filter.label}
            <Link
              to={itemsHref({ ...query, ...filter.without, before: null })}
              className="inline-flex size-7 items-center justify-center rounded-full text-muted hover:bg-surface-muted hover:text-text"
            >
              <span aria-hidden="true">×</span>
              <span className="sr-only">Remove filter {filter.label}</span>
            </Link>
          </li>
        ))}
      </ul>
      <Link to={itemsHref({ columns: query.columns, groupBy: query.groupBy, layout: query.layout })} className="text-primary-strong underline underline-offset-2">
        Clear filters
      </Link>
    </div>
  )
}
