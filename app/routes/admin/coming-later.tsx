import { data, useLoaderData } from 'react-router'
import { EmptyState } from '~/components/ui/empty-state'
import { PageHeader } from '~/components/ui/page-header'
import type { Route } from './+types/coming-later'
import { adminPageLabel } from './sections'

/** Admin pages of spec §2 whose issues come later; any other path under /admin is a 404. */
export function loader({ request }: Route.LoaderArgs) {
  const label = adminPageLabel(new URL(request.url).pathname)
  if (!label) throw data('Not Found', { status: 404, statusText: 'The requested resource was not found.' })
  return { label }
}

export default function AdminComingLater() {
  const { label } = useLoaderData<typeof loader>()
  return (
    <>
      <PageHeader title={label} />
      <EmptyState heading="Not available yet">This admin page is not built yet. Nothing is stored or shown here for now.</EmptyState>
    </>
  )
}

export function meta({ data: loaderData }: Route.MetaArgs) {
  return [{ title: `${loaderData?.label ?? 'Administration'} · Site Portal` }]
}
