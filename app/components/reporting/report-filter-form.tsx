import { Form } from 'react-router'
import { Button } from '~/components/ui/button'
import { SelectField } from '~/components/ui/select-field'
import { type Project, projectTitle } from '~/lib/reporting/types'

export type ReportFilter = { projectId: string | undefined; status: 'active' | 'archived' }

/**
 * Which reports /reports lists: a GET form, so the filter lives in the URL and works without
 * JavaScript. Submitting starts again from the first page (the paging cursors are not fields).
 */
export function ReportFilterForm({ projects, filter }: { projects: readonly Project[]; filter: ReportFilter }) {
  return (
    // Keyed by the filter: defaultValue only applies when the selects are created.
    <Form method="get" key={`${filter.projectId ?? ''}|${filter.status}`} aria-label="Filter reports" className="flex flex-col gap-3 sm:flex-row sm:items-end">
      <SelectField
        label="Project"
        className="sm:min-w-64"
        selectProps={{ name: 'projectId', id: 'filter-project', defaultValue: filter.projectId ?? '' }}
        placeholder="All projects"
        options={projects.map((project) => ({
          value: project.id,
          label: project.status === 'archived' ? `${projectTitle(project.title)} (archived)` : projectTitle(project.title),
        }))}
      />
      <SelectField
        label="Status"
        selectProps={{ name: 'status', id: 'filter-status', defaultValue: filter.status }}
        options={[
          { value: 'active', label: 'Active' },
          { value: 'archived', label: 'Archived' },
        ]}
      />
      <Button type="submit" variant="secondary">
        Show reports
      </Button>
    </Form>
  )
}
