import { Form } from 'react-router'
import { Button } from '~/components/ui/button'
import { SelectField } from '~/components/ui/select-field'
import { type Project, projectTitle } from '~/lib/reporting/types'

/** Which project's documents /documents shows: a GET form (`projectId` in the URL), working without JavaScript. */
export function ProjectPicker({ projects, projectId }: { projects: readonly Pick<Project, 'id' | 'title' | 'status'>[]; projectId: string | null }) {
  return (
    <Form method="get" action="/documents" key={projectId ?? ''} aria-label="Choose a project" className="flex flex-col gap-3 sm:flex-row sm:items-end">
      <SelectField
        label="Project"
        className="sm:min-w-72"
        selectProps={{ name: 'projectId', id: 'documents-project', defaultValue: projectId ?? '', required: true }}
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
