import { revalidateAfterConflict } from '~/lib/revalidate-after-conflict'
import { type SubmissionResult, getFormProps, getInputProps, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { z } from 'zod'
import { data, Form, Link, redirect, useActionData } from 'react-router'
import { PinPicker } from '~/components/drawings/pin-picker'
import { clickToFraction, shownToSheet, zoomOf } from '~/components/drawings/sheet-geometry'
import { SheetBox, ZoomLinks } from '~/components/drawings/sheet-view'
import { loaded } from '~/components/reporting/item-action'
import { ItemBreadcrumbs } from '~/components/reporting/item-breadcrumbs'
import { useReportingAbilities } from '~/components/reporting/project-abilities'
import { conflictRevision, noticeOf, type Notice } from '~/components/reporting/report-action'
import { Banner } from '~/components/ui/banner'
import { Button } from '~/components/ui/button'
import { CsrfInput } from '~/components/ui/csrf-input'
import { EmptyState } from '~/components/ui/empty-state'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { SelectField } from '~/components/ui/select-field'
import { SubmitButton } from '~/components/ui/submit-button'
import { createServerApi } from '~/lib/api.server'
import type { ApiClient, ApiError } from '~/lib/api/types'
import type { SheetRotation } from '~/lib/documents/types'
import { setFlash } from '~/lib/flash.server'
import { failureStatus, formMessageFor } from '~/lib/forms'
import { revisionFromForm } from '~/lib/schemas/edit-conflict'
import type { Route } from './+types/item-pin'
import { RevisionInput } from '~/components/ui/revision-input'

const CLICK_FIRST = 'Click the sheet where the item is. With a keyboard, give the position by numbers below.'
const drawingId = z.string({ error: 'Choose a drawing.' }).trim().min(1, 'Choose a drawing.')
const percent = (message: string) => z.number({ error: message }).min(0, message).max(100, message)

/** The sheet clicked: the click's pixels in the image's own box, and that box's size. */
export const PlaceByClickSchema = z.object({
  documentId: drawingId,
  width: z.number({ error: CLICK_FIRST }).int().positive(CLICK_FIRST),
  height: z.number({ error: CLICK_FIRST }).int().positive(CLICK_FIRST),
  at: z.object({ x: z.number({ error: CLICK_FIRST }).min(0, CLICK_FIRST), y: z.number({ error: CLICK_FIRST }).min(0, CLICK_FIRST) }, { error: CLICK_FIRST }),
})

/** The same place typed in: how far across and down the sheet as shown upright, in per cent. */
export const PlaceByNumbersSchema = z.object({
  documentId: drawingId,
  across: percent('Give how far across the sheet, from 0 (left edge) to 100 % (right edge).'),
  down: percent('Give how far down the sheet, from 0 (top edge) to 100 % (bottom edge).'),
  /** The sheet's turn as shown, to take the typed place back to the raster. */
  rotation: z.union([z.literal(0), z.literal(90), z.literal(180), z.literal(270)]),
})

/** `revision`: after a stale move (409 KR_EDIT_CONFLICT), the pin's revision now, for the next try. */
type ActionData = { intent: string; result?: SubmissionResult<string[]> | undefined; notice?: Notice | undefined; revision?: number | undefined }

/**
 * Pinning an item on a drawing of its project (docs/documents.md "Drawings and pins"): choose the
 * drawing (pinning on), then click the sheet where the item is. Also where the item page's
 * "Confirm pin" and "Remove pin" post. Every step works without JavaScript.
 */
export async function loader({ request, context, params }: Route.LoaderArgs) {
  const url = new URL(request.url)
  const { api, responseHeaders } = createServerApi(request, context)
  const id = encodeURIComponent(params.itemId)
  const [itemResult, pinResult] = await Promise.all([api.GET('/api/items/{id}', { path: { id } }), api.GET('/api/items/{id}/pin', { path: { id } })])
  const item = loaded(itemResult, responseHeaders)
  const drawings = loaded(await api.GET('/api/projects/{id}/drawings', { path: { id: item.projectId } }), responseHeaders)
  const pin = pinResult.ok ? pinResult.data : null
  const offered = drawings.items.filter((drawing) => drawing.pinning)
  const wanted = url.searchParams.get('documentId') ?? pin?.documentId ?? (offered.length === 1 ? offered[0]?.documentId : undefined)
  const chosen = offered.find((drawing) => drawing.documentId === wanted) ?? null
  return data({ item, pin, offered, chosen, colours: drawings.colours, zoom: zoomOf(url.searchParams) }, { headers: responseHeaders })
}

export async function action({ request, context, params }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const intent = String(formData.get('intent') ?? '')
  switch (intent) {
    case 'place':
    case 'place-at':
      return place(api, params.itemId, intent, formData, responseHeaders)
    case 'confirm':
      return confirm(api, params.itemId, responseHeaders)
    case 'remove':
      return remove(api, params.itemId, responseHeaders)
    default:
      throw data('Unknown intent', { status: 400 })
  }
}


async function place(api: ApiClient, itemId: string, intent: 'place' | 'place-at', formData: FormData, headers: Headers) {
  const byClick = intent === 'place'
  const submission = byClick ? parseWithZod(formData, { schema: PlaceByClickSchema }) : parseWithZod(formData, { schema: PlaceByNumbersSchema })
  if (submission.status !== 'success') return data<ActionData>({ intent, result: submission.reply() }, { status: 400 })
  const value = submission.value
  let point: { x: number; y: number }
  if ('at' in value) {
    // A keyboard's Enter on the image sends 0, 0: no place was chosen.
    if (value.at.x === 0 && value.at.y === 0) return data<ActionData>({ intent, result: submission.reply({ formErrors: [CLICK_FIRST] }) }, { status: 400 })
    point = clickToFraction(value.at, value)
  } else {
    point = shownToSheet(value.rotation, value.across / 100, value.down / 100)
  }
  // Moved against the pin as the page showed it: a move by someone else since is a conflict, said above the sheet.
  const expectedRevision = revisionFromForm(formData.get('expectedRevision'))
  const result = await api.PUT('/api/items/{id}/pin', { path: { id: itemId }, body: { documentId: value.documentId, ...point, expectedRevision } })
  if (!result.ok) return placeFailure(intent, submission, result.error, headers)
  await setFlash(headers, { tone: 'success', message: `Item #${result.data.itemNumber} pinned on ${result.data.documentNumber}.` })
  throw redirect(`/items/${itemId}`, { headers })
}

type Replyable = { reply: (options?: { formErrors?: string[]; fieldErrors?: Record<string, string[]> }) => SubmissionResult<string[]> }

/** The backend's answer next to what the user did: the drawing's problem by its field, a point off the sheet by the form. */
function placeFailure(intent: string, submission: Replyable, error: ApiError, headers: Headers) {
  const status = failureStatus(error)
  if (error.status === 403) return data<ActionData>({ intent, result: submission.reply(), notice: noticeOf(error) }, { status, headers })
  if (error.status === 404) return data<ActionData>({ intent, result: submission.reply({ formErrors: ['That drawing is not available any more: choose another.'] }) }, { status, headers })
  const fields = error.problem?.errors ?? {}
  const place = [...(fields.x ?? []), ...(fields.y ?? [])]
  const fieldErrors: Record<string, string[]> = {}
  if (fields.documentId) fieldErrors.documentId = fields.documentId
  if (intent === 'place-at') {
    if (fields.x) fieldErrors.across = fields.x
    if (fields.y) fieldErrors.down = fields.y
  }
  const formErrors = intent === 'place' ? place : []
  if (Object.keys(fieldErrors).length === 0 && formErrors.length === 0) formErrors.push(formMessageFor(error))
  return data<ActionData>({ intent, result: submission.reply({ formErrors, fieldErrors }), revision: conflictRevision(error) }, { status, headers })
}

async function confirm(api: ApiClient, itemId: string, headers: Headers) {
  const result = await api.POST('/api/items/{id}/pin/confirm', { path: { id: itemId } })
  if (!result.ok) return data<ActionData>({ intent: 'confirm', notice: noticeOf(result.error) }, { status: failureStatus(result.error), headers })
  await setFlash(headers, { tone: 'success', message: `Pin confirmed on revision ${result.data.revisionCode}.` })
  throw redirect(`/items/${itemId}`, { headers })
}

async function remove(api: ApiClient, itemId: string, headers: Headers) {
  const result = await api.DELETE('/api/items/{id}/pin', { path: { id: itemId } })
  // Gone already (someone else removed it): what the user wanted.
  if (!result.ok && result.error.status !== 404) return data<ActionData>({ intent: 'remove', notice: noticeOf(result.error) }, { status: failureStatus(result.error), headers })
  await setFlash(headers, { tone: 'success', message: 'Pin removed from the drawing.' })
  throw redirect(`/items/${itemId}`, { headers })
}

export default function ItemPinScreen({ loaderData }: Route.ComponentProps) {
  const { item, pin, offered, chosen, zoom } = loaderData
  const actionData = useActionData<typeof action>()
  const can = useReportingAbilities()
  // The click form has nothing to type: every problem of it (the place, the drawing) shows above the sheet.
  const clickErrors = actionData?.intent === 'place' ? [...new Set(Object.values(actionData.result?.error ?? {}).flatMap((messages) => messages ?? []))] : []
  const numbersResult = actionData?.intent === 'place-at' ? actionData.result : undefined
  const current = pin && chosen && pin.documentId === chosen.documentId ? { x: pin.x, y: pin.y, colour: pin.colour } : undefined
  const revision = actionData?.revision ?? pin?.revision
  return (
    <>
      <ItemBreadcrumbs item={item} />
      <PageHeader
        title={pin ? `Move the pin of item #${item.number}` : `Pin item #${item.number} on a drawing`}
        description={pin ? `Now on ${pin.documentNumber}. Choose a drawing, then click the sheet where the item is.` : 'Choose a drawing of the item’s project, then click the sheet where the item is.'}
      />
      {actionData?.notice ? (
        <Banner tone="critical" title="That did not work" correlationId={actionData.notice.correlationId} className="mb-6">
          {actionData.notice.message}
        </Banner>
      ) : null}
      {!can.write ? (
        <Banner tone="info" className="mb-6">
          Your role reads items only: ask someone who edits items to pin this one.
        </Banner>
      ) : null}
      {offered.length === 0 ? (
        <EmptyState heading="No drawings to pin on" action={<Link to="/documents" className="text-primary-strong underline underline-offset-2">Open Documents</Link>}>
          No drawings in this project yet: upload a sheet (PDF or image) in Documents.
        </EmptyState>
      ) : (
        <div className="flex flex-col gap-8">
          <Section title="1. Drawing">
            <Form method="get" className="flex flex-col gap-3 sm:flex-row sm:items-end">
              {zoom === 'fit' ? null : <input type="hidden" name="zoom" value={zoom} />}
              <SelectField
                label="Drawing"
                className="min-w-0 flex-1"
                selectProps={{ name: 'documentId', defaultValue: chosen?.documentId ?? '', required: true }}
                placeholder={chosen ? undefined : 'Choose a drawing'}
                options={offered.map((drawing) => ({ value: drawing.documentId, label: `${drawing.number} ${drawing.title}` }))}
              />
              <Button type="submit" variant="secondary">
                Show drawing
              </Button>
            </Form>
          </Section>
          {chosen && can.write ? (
            <Section
              title="2. Where is the item?"
              description={`Click the sheet where the item is. The pin goes on revision ${chosen.sheet.revisionCode}${current ? '; its place now is ringed' : ''}.`}
              actions={<ZoomLinks current={zoom} />}
            >
              <FormError errors={clickErrors} />
              <SheetBox label={`Sheet ${chosen.number}, scrollable`}>
                <PinPicker key={`${chosen.documentId}-${zoom}`} sheet={chosen.sheet} documentId={chosen.documentId} zoom={zoom} label={`Sheet ${chosen.number}: click where the item is`} current={current} revision={revision} />
              </SheetBox>
              <details open={numbersResult !== undefined} className="rounded-lg border border-border bg-surface p-4">
                <summary className="cursor-pointer font-medium text-primary-strong">Place it by position instead</summary>
                <PlaceByNumbersForm key={`${chosen.documentId}-numbers`} documentId={chosen.documentId} rotation={chosen.sheet.rotation} revision={revision} lastResult={numbersResult} />
              </details>
            </Section>
          ) : null}
        </div>
      )}
    </>
  )
}

function PlaceByNumbersForm({
  documentId,
  rotation,
  revision,
  lastResult,
}: {
  documentId: string
  rotation: SheetRotation
  revision: number | undefined
  lastResult: SubmissionResult<string[]> | undefined
}) {
  const [form, fields] = useForm({
    id: 'pin-by-numbers',
    lastResult,
    defaultNoValidate: false,
    constraint: getZodConstraint(PlaceByNumbersSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: PlaceByNumbersSchema }),
  })
  return (
    <Form method="post" {...getFormProps(form)} className="mt-4 flex flex-col gap-4">
      <CsrfInput />
      <input type="hidden" name="documentId" value={documentId} />
      <input type="hidden" name="rotation" value={rotation} />
      {revision === undefined ? null : <RevisionInput revision={revision} />}
      <FormError id={form.errorId} errors={[...(form.errors ?? []), ...(fields.documentId.errors ?? [])]} />
      <p className="text-sm text-muted">As the sheet is shown here: 0 % across is its left edge, 0 % down its top edge.</p>
      <div className="grid gap-4 sm:grid-cols-2">
        <Field label="Across (%)" inputProps={{ ...getInputProps(fields.across, { type: 'number' }), step: 'any', inputMode: 'decimal' }} errors={fields.across.errors} />
        <Field label="Down (%)" inputProps={{ ...getInputProps(fields.down, { type: 'number' }), step: 'any', inputMode: 'decimal' }} errors={fields.down.errors} />
      </div>
      <SubmitButton intent="place-at" pendingLabel="Placing…" className="self-start">
        Place pin here
      </SubmitButton>
    </Form>
  )
}

export function meta({ data: loaderData }: Route.MetaArgs) {
  return [{ title: loaderData ? `Pin item #${loaderData.item.number} · Site Portal` : 'Pin an item · Site Portal' }]
}

/** After a save refused as stale the screen reads its data again (app/lib/revalidate-after-conflict.ts). */
export const shouldRevalidate = revalidateAfterConflict
