import { revalidateAfterConflict } from '~/lib/revalidate-after-conflict'
import { parseWithZod } from '@conform-to/zod/v4'
import { Suspense } from 'react'
import { data, Link, redirect, useActionData } from 'react-router'
import { ItemPinPanel, pinState } from '~/components/drawings/item-pin-panel'
import { itemFormFailure, itemNoticeFailure, loaded } from '~/components/reporting/item-action'
import { ItemGallery, ResponsePhotos } from '~/components/reporting/item-gallery'
import { captionPhoto, deletePhoto, loadPhotos, movePhoto, photoFailure, photoFormErrors, photosOfForm } from './item-photos.server'
import { ItemFacts, NextActionBanner } from '~/components/reporting/item-facts'
import { ItemThread } from '~/components/reporting/item-thread'
import { useReportingAbilities } from '~/components/reporting/project-abilities'
import { invalidForm, resultFor, revisionFor } from '~/components/reporting/report-action'
import { Banner } from '~/components/ui/banner'
import { lazyPart } from '~/components/ui/lazy-part'
import { ButtonLink } from '~/components/ui/button-link'
import { Card } from '~/components/ui/card'
import { ConfirmDialog } from '~/components/ui/confirm-dialog'
import { PageHeader } from '~/components/ui/page-header'
import { useHydrated } from '~/components/ui/use-hydrated'
import { Section } from '~/components/ui/section'
import { DiscussionPanel } from '~/islands/realtime/discussion-panel'
import { LiveItemUpdates } from '~/islands/realtime/live-item-notice'
import { createServerApi } from '~/lib/api.server'
import type { ApiClient } from '~/lib/api/types'
import { setFlash } from '~/lib/flash.server'
import { roomName } from '~/lib/realtime/events'
import { type Item, reportTitle } from '~/lib/reporting/types'
import { ConfirmCloseSchema, ItemFieldsSchema, RejectCloseSchema, RespondSchema } from '~/lib/schemas/reporting-items'
import { useLocale, useShellSession } from '~/root'
import type { Route } from './+types/item'
import { deferred, partsBeforeNavigation } from '~/components/ui/deferred'

// The forms hydrate after the rest of the screen (app/components/ui/deferred.tsx): the item, its
// responses and drawing do not need the form library.
const loadItemVerifyForms = async () => (await import('~/components/reporting/item-verify-forms')).ItemVerifyForms
const ItemVerifyForms = deferred(loadItemVerifyForms, import.meta.env.SSR ? await loadItemVerifyForms() : undefined)
const loadItemRespondForm = async () => (await import('~/components/reporting/item-respond-form')).ItemRespondForm
const ItemRespondForm = deferred(loadItemRespondForm, import.meta.env.SSR ? await loadItemRespondForm() : undefined)
// So does the forms' photo field: it is laid out as its upload island (check box and all), which
// the first load need not carry either.
const loadPhotoUploadField = async () => (await import('~/islands/upload/photo-upload-field')).PhotoUploadField
const PhotoUploadField = deferred(loadPhotoUploadField, import.meta.env.SSR ? await loadPhotoUploadField() : undefined)
const loadItemEditForm = async () => (await import('~/components/reporting/item-edit-form')).ItemEditForm
const ItemEditForm = deferred(loadItemEditForm, import.meta.env.SSR ? await loadItemEditForm() : undefined)
await partsBeforeNavigation(ItemVerifyForms, ItemRespondForm, PhotoUploadField, ItemEditForm)

/**
 * One item (spec §2 /items/{itemId}): its fields, who acts next, the thread, and the forms the
 * user may use: respond (and ask to close), the verifier's confirm or reject, edit, delete.
 */
export async function loader({ request, context, params }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  const id = encodeURIComponent(params.itemId)
  const itemCall = api.GET('/api/items/{id}', { path: { id } })
  // The project's packages are asked as soon as the item is known, while the page's other reads
  // are still under way: they then share the page's one read transaction (issue 37).
  const packagesCall = itemCall.then((result) => (result.ok ? api.GET('/api/projects/{id}/packages', { path: { id: result.data.projectId } }) : null))
  const [itemResult, responses, members, photos, pin, packages] = await Promise.all([
    itemCall,
    api.GET('/api/items/{id}/responses', { path: { id } }),
    api.GET('/api/members'),
    loadPhotos(api, params.itemId),
    api.GET('/api/items/{id}/pin', { path: { id } }),
    packagesCall,
  ])
  const item = loaded(itemResult, responseHeaders)
  return data(
    {
      item,
      responses: loaded(responses, responseHeaders).items,
      members: members.ok ? members.data.items : [],
      packages: packages?.ok ? packages.data.items : [],
      photos,
      pin: pinState(pin),
    },
    { headers: responseHeaders },
  )
}

export async function action({ request, context, params }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const intent = String(formData.get('intent') ?? '')
  switch (intent) {
    case 'respond':
      return respond(api, params.itemId, formData, responseHeaders)
    case 'confirm-close':
    case 'reject-close':
      return decide(api, params.itemId, intent, formData, responseHeaders)
    case 'edit':
      return edit(api, params.itemId, formData, responseHeaders)
    case 'delete':
      return remove(api, params.itemId, responseHeaders)
    case 'photo-caption':
      return captionPhoto(api, params.itemId, formData, responseHeaders)
    case 'photo-move':
      return movePhoto(api, params.itemId, formData, responseHeaders)
    case 'photo-delete':
      return deletePhoto(api, params.itemId, formData, responseHeaders)
    default:
      throw data('Unknown intent', { status: 400 })
  }
}

// Field mode's unsent responses (issue 10): fetched only when mobile sync is on.
const OutboxPanel = lazyPart(() => import('~/islands/sync/outbox-panel').then((m) => m.OutboxPanel))

/**
 * The outbox of this item, once the page runs in the browser with mobile sync on. Its own component
 * so that the switch to "hydrated" re-renders it alone: re-rendering the screen then would give the
 * deferred forms new props before their chunks arrived, and React would throw their server HTML
 * away and draw them anew, losing what the person had typed meanwhile (a slow phone: a response
 * typed while the page started was gone, online or off).
 */
function ItemOutbox({ itemId, locale }: { itemId: string; locale: string }) {
  const hydrated = useHydrated()
  const session = useShellSession()
  if (!hydrated || !session?.mobileSync) return null
  return (
    <Suspense fallback={null}>
      <OutboxPanel owner={{ userId: session.userId, tenantId: session.tenantId }} itemId={itemId} locale={locale} />
    </Suspense>
  )
}

async function respond(api: ApiClient, itemId: string, formData: FormData, headers: Headers) {
  const submission = parseWithZod(formData, { schema: RespondSchema })
  if (submission.status !== 'success') return invalidForm('respond', submission)
  const { body, requestClose } = submission.value
  const photos = await photosOfForm(api, itemId, formData)
  if (!photos.ok) return photoFailure('respond', submission, photos.error, headers)
  const result = await api.POST('/api/items/{id}/responses', { path: { id: itemId }, body: { body, requestClose: requestClose ?? false, photoIds: photos.photoIds }, idempotencyKey: true })
  if (!result.ok) return photoFormErrors(result.error) ? photoFailure('respond', submission, result.error, headers) : itemFormFailure('respond', submission, result.error, headers)
  const message = result.data.requestClose ? 'Response sent, and the close requested. The verifier confirms it.' : 'Response sent.'
  await setFlash(headers, { tone: 'success', message })
  throw redirect(`/items/${itemId}`, { headers })
}

async function decide(api: ApiClient, itemId: string, intent: 'confirm-close' | 'reject-close', formData: FormData, headers: Headers) {
  const confirmed = intent === 'confirm-close'
  const submission = parseWithZod(formData, { schema: confirmed ? ConfirmCloseSchema : RejectCloseSchema })
  if (submission.status !== 'success') return invalidForm(intent, submission)
  const photos = confirmed ? await photosOfForm(api, itemId, formData) : { ok: true as const, photoIds: [] }
  if (!photos.ok) return photoFailure(intent, submission, photos.error, headers)
  const result = await api.POST('/api/items/{id}/confirm-close', { path: { id: itemId }, body: { confirmed, body: submission.value.body, photoIds: photos.photoIds }, idempotencyKey: true })
  if (!result.ok) return photoFormErrors(result.error) ? photoFailure(intent, submission, result.error, headers) : itemFormFailure(intent, submission, result.error, headers)
  const message = confirmed ? `Item #${result.data.number} is closed.` : `Item #${result.data.number} is open again; the reason is in the thread.`
  await setFlash(headers, { tone: 'success', message })
  throw redirect(`/items/${itemId}`, { headers })
}

async function edit(api: ApiClient, itemId: string, formData: FormData, headers: Headers) {
  const submission = parseWithZod(formData, { schema: ItemFieldsSchema })
  if (submission.status !== 'success') return invalidForm('edit', submission)
  const v = submission.value
  // An emptied optional field clears the value (the API's null).
  const patch = {
    title: v.title,
    description: v.description ?? null,
    priority: v.priority,
    assigneeUserId: v.assigneeUserId ?? null,
    packageKey: v.packageKey ?? null,
    location: v.location ?? null,
    dueDate: v.dueDate ?? null,
    // The revision the form was opened at: someone else's later change is refused, not overwritten.
    expectedRevision: revisionOf(formData),
  }
  const result = await api.PATCH('/api/items/{id}', { path: { id: itemId }, body: patch })
  if (!result.ok) return itemFormFailure('edit', submission, result.error, headers)
  await setFlash(headers, { tone: 'success', message: `Item #${result.data.number} saved.` })
  throw redirect(`/items/${itemId}`, { headers })
}

function revisionOf(formData: FormData): number | undefined {
  const raw = formData.get('expectedRevision')
  if (typeof raw !== 'string' || raw === '') return undefined
  const value = Number(raw)
  return Number.isSafeInteger(value) && value >= 0 ? value : undefined
}

async function remove(api: ApiClient, itemId: string, headers: Headers) {
  const item = await api.GET('/api/items/{id}', { path: { id: itemId } })
  const result = await api.DELETE('/api/items/{id}', { path: { id: itemId } })
  if (!result.ok) return itemNoticeFailure('delete', result.error, headers)
  const name = item.ok ? `Item #${item.data.number} “${item.data.title}”` : 'The item'
  await setFlash(headers, { tone: 'success', message: `${name} deleted. Its activity stays on record.` })
  throw redirect('/items', { headers })
}

export default function ItemScreen({ loaderData }: Route.ComponentProps) {
  const { item, responses, members, packages, photos, pin } = loaderData
  const actionData = useActionData<typeof action>()
  const session = useShellSession()
  const can = useReportingAbilities()
  const locale = useLocale()
  const userId = session?.userId ?? null
  const isVerifier = can.write && (Boolean(session?.isAdmin) || (item.createdBy !== null && item.createdBy.id === userId))
  const canDelete = isVerifier
  const packageName = (key: string) => packages.find((p) => p.key === key)?.name ?? key
  const editResult = resultFor(actionData, 'edit')
  const notice = actionData?.notice
  // The user's own new response or a decision remounts the photo field, so its finished photos are
  // not sent twice. Someone else's response (a live revalidation) must not: it would drop uploads.
  const photoFieldKey = `${responses.filter((r) => r.author?.id === userId).length}-${item.status}`
  const captionResult = resultFor(actionData, 'photo-caption', actionData?.targetId)
  const captionTyped = captionResult?.initialValue?.caption
  const captionReply =
    actionData?.targetId && captionResult
      ? {
          photoId: actionData.targetId,
          errors: [...(captionResult.error?.caption ?? []), ...(captionResult.error?.[''] ?? [])],
          typed: typeof captionTyped === 'string' ? captionTyped : undefined,
          revision: actionData.revision,
        }
      : undefined
  return (
    <>
      <nav aria-label="Breadcrumb" className="mb-3 text-sm">
        <ol className="flex flex-wrap gap-x-2 text-muted">
          <li>
            <Link to="/items" className="text-primary-strong underline underline-offset-2">
              Items
            </Link>
            <span aria-hidden="true"> /</span>
          </li>
          <li>
            <Link to={`/reports/${item.reportId}`} className="text-primary-strong underline underline-offset-2">
              {reportTitle(item.reportTitle)}
            </Link>
          </li>
        </ol>
      </nav>
      <PageHeader
        title={`#${item.number} ${item.title}`}
        actions={
          <ButtonLink to={`/items/${item.id}/activity`} variant="secondary">
            Activity
          </ButtonLink>
        }
      />
      <NextActionBanner item={item} userId={userId} locale={locale} />
      <LiveItemUpdates itemId={item.id} ownUserId={userId} />
      {notice ? (
        <Banner tone="critical" title="That did not work" correlationId={notice.correlationId} className="mb-6">
          {notice.message}
        </Banner>
      ) : null}
      <div className="grid gap-8 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <div className="flex min-w-0 flex-col gap-8">
          <Card>
            <h2 className="sr-only">Details</h2>
            <ItemFacts item={item} packageName={packageName} locale={locale} />
          </Card>
          <ItemPinPanel itemId={item.id} state={pin} canEdit={can.write} />
          <ItemOutbox itemId={item.id} locale={locale} />
          <Section title="Responses" description="Oldest first.">
            <ItemThread responses={responses} locale={locale} photosOf={(response) => <ResponsePhotos photoIds={response.photoIds} photos={photos} />} />
          </Section>
          <Section title="Photos" description="In the order they show in reports. Open a photo for its full size.">
            <ItemGallery photos={photos} canEdit={can.write} captionReply={captionReply} />
          </Section>
          {isVerifier ? (
            <Section title={verifyTitle(item.status)} description={verifyDescription(item.status)}>
              <ItemVerifyForms
                status={item.status}
                confirmResult={resultFor(actionData, 'confirm-close')}
                rejectResult={resultFor(actionData, 'reject-close')}
                photos={<PhotoUploadField key={photoFieldKey} itemId={item.id} />}
              />
            </Section>
          ) : null}
          {can.write && item.status !== 'closed' ? (
            <Section title="Respond">
              <ItemRespondForm canRequestClose={item.status === 'open'} lastResult={resultFor(actionData, 'respond')} photos={<PhotoUploadField key={photoFieldKey} itemId={item.id} />} />
            </Section>
          ) : null}
        </div>
        <div className="flex min-w-0 flex-col gap-8">
          {can.write ? (
            <Section title="Edit item">
              <ItemEditForm item={item} revision={revisionFor(actionData, 'edit', undefined, item.revision)} members={members} packages={packages} lastResult={editResult} />
            </Section>
          ) : null}
          {can.write && canDelete ? (
            <Section title="Delete item" description="For an item recorded by mistake. Its activity stays on record.">
              <ConfirmDialog triggerLabel="Delete item…" title={`Delete item #${item.number}?`} confirmLabel="Yes, delete item" pendingLabel="Deleting…" intent="delete">
                It leaves every list and cannot be restored.
              </ConfirmDialog>
            </Section>
          ) : null}
          {/* Last: it arrives after the page (its chunk, then the room), and grows with its messages,
              so nothing a person is about to tap sits below it and moves. */}
          <DiscussionPanel room={roomName('item', item.id)} ownUserId={userId} locale={locale} />
        </div>
      </div>
    </>
  )
}

function verifyTitle(status: Item['status']): string {
  if (status === 'close_requested') return 'Confirm or reject the close'
  return status === 'closed' ? 'Reopen' : 'Close this item'
}

function verifyDescription(status: Item['status']): string {
  if (status === 'close_requested') return 'You verify this item. Reject with a reason if the work is not done.'
  return status === 'closed' ? 'If the work turns out not to be done, reopen it with the reason.' : 'As its verifier you may close it without a close request.'
}

export function meta({ data: loaderData }: Route.MetaArgs) {
  return [{ title: loaderData ? `#${loaderData.item.number} ${loaderData.item.title} · Site Portal` : 'Item · Site Portal' }]
}

/** After a save refused as stale the screen reads its data again (app/lib/revalidate-after-conflict.ts). */
export const shouldRevalidate = revalidateAfterConflict
