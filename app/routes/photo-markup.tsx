import { data, Link } from 'react-router'
import { loaded } from '~/components/reporting/item-action'
import { ItemBreadcrumbs } from '~/components/reporting/item-breadcrumbs'
import { Banner } from '~/components/ui/banner'
import { ButtonLink } from '~/components/ui/button-link'
import { PageHeader } from '~/components/ui/page-header'
import { useHydrated } from '~/components/ui/use-hydrated'
import { MarkupEditor } from '~/islands/markup/editor'
import { createServerApi } from '~/lib/api.server'
import { MESSAGES } from '~/lib/api/messages'
import type { Route } from './+types/photo-markup'

/**
 * Marking up one photo of an item (docs/photos.md "POST /api/photos/edits"): the photo, its latest
 * overlay to edit again, and the markup island. Drawing needs script; without it (and until it
 * loads) the page shows the photo and says so.
 */
export async function loader({ request, context, params }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  const id = encodeURIComponent(params.itemId)
  const [itemResult, photosResult] = await Promise.all([api.GET('/api/items/{id}', { path: { id } }), api.GET('/api/items/{itemId}/photos', { path: { itemId: id } })])
  const item = loaded(itemResult, responseHeaders)
  const photo = loaded(photosResult, responseHeaders).items.find((p) => p.id === params.photoId)
  // Another item's photo, another tenant's, or a deleted one: not found here.
  if (!photo) throw data(null, { status: 404, statusText: MESSAGES.notFound, headers: responseHeaders })
  return data(
    {
      item: { id: item.id, number: item.number, title: item.title },
      photo: {
        id: photo.id,
        displayName: photo.displayName,
        caption: photo.caption,
        displayUrl: photo.displayUrl,
        canEdit: photo.originalUrl !== null,
      },
      overlay: photo.edit?.overlayJson ?? null,
    },
    { headers: responseHeaders },
  )
}

export default function PhotoMarkupScreen({ loaderData }: Route.ComponentProps) {
  const { item, photo, overlay } = loaderData
  const hydrated = useHydrated()
  const itemPath = `/items/${item.id}`
  const alt = photo.caption ? `Photo: ${photo.caption}` : `Photo ${photo.displayName}`
  return (
    <>
      <ItemBreadcrumbs item={item} />
      <PageHeader
        title="Mark up photo"
        description={photo.caption ?? photo.displayName}
        actions={
          <ButtonLink to={itemPath} variant="secondary">
            Back to item
          </ButtonLink>
        }
      />
      {/* Until the island starts; without JavaScript it stays. */}
      {!hydrated ? (
        <Banner tone="info" title="Marking up needs JavaScript" className="mb-6">
          <p>
            Drawing on a photo works only with JavaScript, which is switched off or has not loaded. Everything else about the item works without it.{' '}
            <Link to={itemPath} className="font-medium text-primary-strong underline underline-offset-2">
              Back to item #{item.number}
            </Link>
          </p>
        </Banner>
      ) : null}
      {!photo.canEdit ? (
        <Banner tone="info" className="mb-6">
          You can look at this photo, but only members who respond to items can mark it up.
        </Banner>
      ) : null}
      {photo.displayUrl ? (
        <MarkupEditor photoId={photo.id} itemId={item.id} imageUrl={photo.displayUrl} imageAlt={alt} overlay={overlay} canEdit={photo.canEdit} />
      ) : (
        <Banner tone="warning">This photo has no version a browser can show (a HEIC photo without a rendition), so it cannot be marked up.</Banner>
      )}
    </>
  )
}

export function meta({ data: loaderData }: Route.MetaArgs) {
  return [{ title: loaderData ? `Mark up photo · #${loaderData.item.number} ${loaderData.item.title} · Site Portal` : 'Mark up photo · Site Portal' }]
}
