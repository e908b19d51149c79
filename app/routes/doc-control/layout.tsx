import { data, Outlet } from 'react-router'
import { DocumentsNav } from '~/components/documents/documents-nav'
import { loadDocumentsNav } from '~/components/documents/documents-nav.server'
import { createServerApi } from '~/lib/api.server'
import type { Route } from './+types/layout'

/**
 * Document control (issue 12, docs/doc-control.md): its screens sit under the Documents tab, with
 * the Documents sub-navigation and the project switcher above them. Each screen works on one
 * project, named by `projectId` in the address; the links keep it, so moving between screens
 * stays in the project, and the project is remembered for the next visit.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  return data(await loadDocumentsNav(api, request), { headers: responseHeaders })
}

export default function DocControlLayout({ loaderData }: Route.ComponentProps) {
  return (
    <>
      <DocumentsNav projects={loaderData.projects} projectId={loaderData.projectId} inboxCount={loaderData.inboxCount} />
      <Outlet />
    </>
  )
}
