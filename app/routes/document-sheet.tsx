import { data, Link } from 'react-router'
import { zoomOf } from '~/components/drawings/sheet-geometry'
import { PinLegend, SheetBox, SheetView, ZoomLinks } from '~/components/drawings/sheet-view'
import { loaded } from '~/components/reporting/item-action'
import { Banner } from '~/components/ui/banner'
import { ButtonLink } from '~/components/ui/button-link'
import { DataTable, type DataTableColumn } from '~/components/ui/data-table'
import { EmptyState } from '~/components/ui/empty-state'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { useLiveRevalidation } from '~/islands/realtime/use-live-revalidation'
import { createServerApi } from '~/lib/api.server'
import type { Pin } from '~/lib/documents/types'
import { STATUS_LABELS } from '~/lib/reporting/labels'
import type { Route } from './+types/document-sheet'

/**
 * A drawing (docs/documents.md "Drawings and pins"): the current sheet at full width with its
 * pins, each a link to its item, and the colours they mean. `revisionId` shows an older revision,
 * marked superseded with the way to the current one; `zoom` (Fit, 100, 200) sets the width the
 * sheet is drawn at inside a scrollable box, so panning and zooming need no JavaScript.
 */
export async function loader({ request, context, params }: Route.LoaderArgs) {
  const url = new URL(request.url)
  const revisionId = url.searchParams.get('revisionId')
  const { api, responseHeaders } = createServerApi(request, context)
  const view = loaded(await api.GET('/api/documents/{id}/drawing', { path: { id: params.documentId }, query: { revisionId: revisionId ?? undefined } }), responseHeaders)
  return data({ view, zoom: zoomOf(url.searchParams) }, { headers: responseHeaders })
}

export default function DocumentSheet({ loaderData }: Route.ComponentProps) {
  const { view, zoom } = loaderData
  const { document, revision, currentRevision, sheet, pins } = view
  // Someone pins, moves or removes an item here, or a new revision arrives: draw it again.
  useLiveRevalidation((change) => change.entityType === 'ReportItem' || (change.entityType === 'Document' && change.entityId === document.id))
  const review = pins.some((pin) => pin.needsReview)
  const facts = [`Revision ${revision.code}`, view.scale ? `Scale ${view.scale}` : null, revision.superseded ? null : pinCount(pins.length)].filter(Boolean).join(' · ')
  return (
    <>
      <nav aria-label="Breadcrumb" className="mb-3 text-sm">
        <ol className="flex flex-wrap gap-x-2 text-muted">
          <li>
            <Link to="/documents" className="text-primary-strong underline underline-offset-2">
              Documents
            </Link>
            <span aria-hidden="true"> /</span>
          </li>
          <li>
            <Link to={`/documents/${document.id}`} className="text-primary-strong underline underline-offset-2">
              {document.number}
            </Link>
          </li>
        </ol>
      </nav>
      <PageHeader title={`${document.number} ${document.title}`} description={facts} actions={<ZoomLinks current={zoom} />} />
      {revision.superseded ? (
        <Banner
          tone="warning"
          title="Superseded"
          className="mb-6"
          action={
            currentRevision ? (
              <ButtonLink to={`/documents/${document.id}/sheet`} variant="secondary" size="sm">
                Open the current revision ({currentRevision.code})
              </ButtonLink>
            ) : undefined
          }
        >
          Revision {revision.code} was replaced{revision.supersededBy ? ` by ${revision.supersededBy.code}` : ''}. Pins show on the current revision only.
        </Banner>
      ) : null}
      <div className="flex flex-col gap-4">
        <SheetBox label={`Sheet ${document.number}, scrollable`}>
          <SheetView sheet={sheet} pins={pins} zoom={zoom} label={`Sheet ${document.number}, revision ${revision.code}`} />
        </SheetBox>
        <PinLegend colours={view.colours} review={review} />
        {revision.superseded ? null : (
          <Section title="Pinned items" description="The items on this sheet, by number. Open one from here or from its pin.">
            <PinTable pins={pins} />
          </Section>
        )}
      </div>
    </>
  )
}

function PinTable({ pins }: { pins: readonly Pin[] }) {
  const columns: Array<DataTableColumn<Pin>> = [
    {
      key: 'item',
      header: 'Item',
      rowHeader: true,
      cell: (pin) => (
        <Link to={`/items/${pin.itemId}`} className="text-primary-strong underline underline-offset-2">
          #{pin.itemNumber} {pin.itemTitle}
        </Link>
      ),
    },
    { key: 'status', header: 'Status', cell: (pin) => STATUS_LABELS[pin.itemStatus] },
    { key: 'review', header: 'Pin', cell: (pin) => (pin.needsReview ? 'To check: the drawing was revised' : 'Placed') },
  ]
  return (
    <DataTable
      caption="Pinned items"
      captionHidden
      columns={columns}
      rows={pins}
      rowKey={(pin) => pin.itemId}
      emptyState={
        <EmptyState heading="No items pinned here yet" headingLevel={3}>
          Open an item and choose “Pin on a drawing” to place it on this sheet.
        </EmptyState>
      }
    />
  )
}

function pinCount(count: number): string {
  return count === 1 ? '1 pin' : `${count} pins`
}

export function meta({ data: loaderData }: Route.MetaArgs) {
  return [{ title: loaderData ? `${loaderData.view.document.number} sheet · Site Portal` : 'Drawing · Site Portal' }]
}
