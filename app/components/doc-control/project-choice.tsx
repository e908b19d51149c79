import { ProjectPicker, type ProjectOption } from '~/components/documents/project-picker'

export type { ProjectOption }

/**
 * Which project a document-control screen works on: the documents' project picker, pointed at the
 * screen's own path (e.g. `/doc-control/parties`), so `projectId` lands in the address and the
 * layout's tabs keep it.
 */
export function ProjectChoice({ projects, projectId, action }: { projects: readonly ProjectOption[]; projectId: string | null; action: string }) {
  return <ProjectPicker projects={projects} projectId={projectId} action={action} selectId="doc-control-project" className="mb-6" />
}
