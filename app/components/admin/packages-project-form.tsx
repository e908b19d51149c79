import { Form } from 'react-router'
import { Badge } from '~/components/ui/badge'
import { CsrfInput } from '~/components/ui/csrf-input'
import { EmptyState } from '~/components/ui/empty-state'
import { SubmitButton } from '~/components/ui/submit-button'
import type { ProjectPackageSetting } from '~/lib/admin/packages'
import { RevisionInput } from '~/components/ui/revision-input'

/**
 * A project's own package settings: per package, follow the organisation, or switch it on or off
 * on this project. One POST (intent `project`) with a select per package (`pkg:{key}`).
 */
export function ProjectPackagesForm({
  projectId,
  projectName,
  settings,
  revision,
  chosen,
}: {
  projectId: string
  projectName: string
  settings: readonly ProjectPackageSetting[]
  /** The settings' revision this form saves against (expectedRevision): the loaded one, or the current one after a conflict. */
  revision: number
  /** What was chosen when a save came back refused (a conflict): the selects keep it. */
  chosen?: Record<string, string> | undefined
}) {
  if (settings.length === 0) return <EmptyState heading="No packages to set" headingLevel={3} />
  return (
    <Form method="post" aria-label={`Packages of ${projectName}`} className="flex flex-col gap-4">
      <CsrfInput />
      <input type="hidden" name="projectId" value={projectId} />
      <RevisionInput revision={revision} />
      <div role="region" aria-label={`Package settings of ${projectName}`} tabIndex={0} className="overflow-x-auto rounded-lg border border-border">
        <table className="w-full border-collapse text-left text-sm">
          <thead className="bg-surface-muted">
            <tr>
              <th scope="col" className="px-4 py-3 font-semibold">
                Package
              </th>
              <th scope="col" className="px-4 py-3 font-semibold">
                Organisation
              </th>
              <th scope="col" className="px-4 py-3 font-semibold">
                On this project
              </th>
              <th scope="col" className="px-4 py-3 font-semibold">
                Outcome
              </th>
            </tr>
          </thead>
          <tbody>
            {settings.map((s) => {
              const selectId = `project-package-${s.key}`
              return (
                <tr key={s.key} className="border-t border-border">
                  <th scope="row" className="px-4 py-3 font-medium">
                    <label htmlFor={selectId}>{s.name}</label>
                  </th>
                  <td className="px-4 py-3">{s.organisationActive ? 'Active' : 'Inactive'}</td>
                  <td className="px-4 py-3">
                    <select
                      id={selectId}
                      name={`pkg:${s.key}`}
                      defaultValue={chosen?.[s.key] ?? (s.override === null ? 'inherit' : s.override ? 'on' : 'off')}
                      className="min-h-9 rounded-md border border-border bg-surface px-2 text-sm"
                    >
                      <option value="inherit">Follow the organisation ({s.organisationActive ? 'on' : 'off'})</option>
                      <option value="on">On for this project</option>
                      <option value="off">Off for this project</option>
                    </select>
                  </td>
                  <td className="px-4 py-3">{s.active ? <Badge tone="success">Usable</Badge> : <Badge tone="neutral">Not usable</Badge>}</td>
                </tr>
              )
            })}
          </tbody>
        </table>
      </div>
      <div>
        <SubmitButton intent="project" pendingLabel="Saving…">
          Save project packages
        </SubmitButton>
      </div>
    </Form>
  )
}
