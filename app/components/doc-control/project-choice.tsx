import { Form } from 'react-router'
import { Button } from '~/components/ui/button'
import { SelectField } from '~/components/ui/select-field'
import { type Project, projectTitle } from '~/lib/reporting/types'

export type ProjectOption = Pick<Project, 'id' | 'title' | 'status'>

/**
 * Which project a document-control screen works on: a GET form that puts `projectId` in the
 * address (so the layout's tabs keep it), working without JavaScript. `action` is the screen's own
 * path, e.g. `/doc-control/parties`.
 */
export function ProjectChoice({ projects, projectId, action }: { projects: readonly ProjectOption[]; projectId: string | null; action: string }) {
  return (
    <Form method="get" action={action} key={projectId ?? ''} aria-label="Choose a project" className="mb-6 flex flex-col gap-3 sm:flex-row sm:items-end">
      <SelectField
        label="Project"
        className="sm:min-w-72"
        selectProps={{ name: 'projectId', id: 'doc-control-project', defaultValue: projectId ?? '', required: true }}
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
