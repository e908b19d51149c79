import { data } from 'react-router'
import { loaded } from '~/components/reporting/item-action'
import { ItemActivityList } from '~/components/reporting/item-activity-list'
import { ItemStatusBadge } from '~/components/reporting/item-badges'
import { ItemBreadcrumbs } from '~/components/reporting/item-breadcrumbs'
import { ButtonLink } from '~/components/ui/button-link'
import { PageHeader } from '~/components/ui/page-header'
import { createServerApi } from '~/lib/api.server'
import { useLocale } from '~/root'
import type { Route } from './+types/item-activity'

/** An item's activity (spec §2 /items/{itemId}/activity): the record nobody can edit, oldest first. */
export async function loader({ request, context, params }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  const id = encodeURIComponent(params.itemId)
  const [item, activity, members, packages] = await Promise.all([
    api.GET('/api/items/{id}', { path: { id } }),
    api.GET('/api/items/{id}/activity', { path: { id } }),
    api.GET('/api/members'),
    api.GET('/api/packages'),
  ])
  return data(
    {
      item: loaded(item, responseHeaders),
      entries: loaded(activity, responseHeaders).items,
      members: members.ok ? members.data.items.map(({ userId, displayName }) => ({ userId, displayName })) : [],
      packages: packages.ok ? packages.data.items.map(({ key, name }) => ({ key, name })) : [],
    },
    { headers: responseHeaders },
  )
}

export default function ItemActivity({ loaderData }: Route.ComponentProps) {
  const { item, entries, members, packages } = loaderData
  const locale = useLocale()
  const names = {
    locale,
    memberName: (userId: string) => members.find((m) => m.userId === userId)?.displayName,
    packageName: (key: string) => packages.find((p) => p.key === key)?.name ?? key,
  }
  return (
    <>
      <ItemBreadcrumbs item={item} />
      <PageHeader
        title={`Activity of item #${item.number}`}
        description={
          <span className="inline-flex flex-wrap items-center gap-2">
            {item.title} <ItemStatusBadge status={item.status} />
          </span>
        }
        actions={
          <ButtonLink to={`/items/${item.id}`} variant="secondary">
            Back to the item
          </ButtonLink>
        }
      />
      <ItemActivityList entries={entries} names={names} />
    </>
  )
}

export function meta({ data: loaderData }: Route.MetaArgs) {
  return [{ title: loaderData ? `Activity of item #${loaderData.item.number} · Site Portal` : 'Item activity · Site Portal' }]
}
