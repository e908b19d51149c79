import { Form } from 'react-router'
import { Button } from '~/components/ui/button'
import { SelectField } from '~/components/ui/select-field'
import { type Project, projectTitle } from '~/lib/reporting/types'

export type ProjectOption = Pick<Project, 'id' | 'title' | 'status'>

/**
 * Which project a screen works on: a GET form (`projectId` in the URL, `action` the screen's own
 * path), working without JavaScript. /documents and the document-control screens use it.
 */
export function ProjectPicker({
  projects,
  projectId,
  action = '/documents',
  selectId = 'documents-project',
  className = '',
}: {
  projects: readonly ProjectOption[]
  projectId: string | null
  action?: string
  selectId?: string
  className?: string
}) {
  return (
    <Form method="get" action={action} key={projectId ?? ''} aria-label="Choose a project" className={`flex flex-col gap-3 sm:flex-row sm:items-end ${className}`}>
      <SelectField
        label="Project"
        className="sm:min-w-72"
        selectProps={{ name: 'projectId', id: selectId, defaultValue: projectId ?? '', required: true }}
        placeholder="Choose a project"
        options={projects.map((project) => ({
          value: project.id,
          label: project.status === 'archived' ? `${projectTitle(project.title)} (archived)` : projectTitle(project.title),
        }))}
      />
      <Button type="submit" variant="secondary">
        Open project
      </Button>
    </Form>
  )
}
