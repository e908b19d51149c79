import { Form, Link } from 'react-router'
import { Banner } from '~/components/ui/banner'
import { ButtonLink } from '~/components/ui/button-link'
import { ConfirmDialog } from '~/components/ui/confirm-dialog'
import { CsrfInput } from '~/components/ui/csrf-input'
import { Section } from '~/components/ui/section'
import { SubmitButton } from '~/components/ui/submit-button'
import type { ApiResult } from '~/lib/api/types'
import type { ItemPin } from '~/lib/documents/types'
import { SheetView } from './sheet-view'

/**
 * The item page's "Location on drawing": the item's pin on its sheet, the note to check it after
 * the drawing was revised, and the ways to pin, move, confirm or remove it. Every action is a plain
 * link or form to /items/{itemId}/pin, so it all works without JavaScript.
 */

export type PinState = { pin: ItemPin | null; unavailable: boolean }

/** The item page loader's answer for the pin: none is not an error (404), anything else is said so. */
export function pinState(result: ApiResult<ItemPin>): PinState {
  if (result.ok) return { pin: result.data, unavailable: false }
  return { pin: null, unavailable: result.error.status !== 404 }
}

export function ItemPinPanel({ itemId, state, canEdit }: { itemId: string; state: PinState; canEdit: boolean }) {
  const { pin } = state
  const pinPage = `/items/${itemId}/pin`
  return (
    <Section
      title="Location on drawing"
      actions={
        canEdit && !state.unavailable ? (
          <>
            <ButtonLink to={pin ? `${pinPage}?documentId=${pin.documentId}` : pinPage} variant="secondary">
              {pin ? 'Move pin' : 'Pin on a drawing'}
            </ButtonLink>
            {pin ? (
              <ConfirmDialog triggerLabel="Remove pin…" title="Remove the pin from the drawing?" confirmLabel="Yes, remove pin" pendingLabel="Removing…" action={pinPage} intent="remove">
                The item stays as it is; it is no longer shown on {pin.documentNumber}.
              </ConfirmDialog>
            ) : null}
          </>
        ) : undefined
      }
    >
      {state.unavailable ? <p className="text-sm text-muted">The drawing location could not be loaded. Reload the page to try again.</p> : null}
      {!pin && !state.unavailable ? <p className="text-sm text-muted">Not pinned on a drawing yet.</p> : null}
      {pin ? (
        <>
          {pin.needsReview ? (
            <Banner
              tone="warning"
              title="Needs review"
              action={
                canEdit ? (
                  <Form method="post" action={pinPage}>
                    <CsrfInput />
                    <SubmitButton intent="confirm" action={pinPage} variant="secondary" size="sm" pendingLabel="Confirming…">
                      Confirm pin
                    </SubmitButton>
                  </Form>
                ) : undefined
              }
            >
              The drawing was revised: check the pin is still in the right place.
            </Banner>
          ) : null}
          <p className="text-sm text-text">
            On{' '}
            <Link to={`/documents/${pin.documentId}/sheet`} className="text-primary-strong underline underline-offset-2">
              {pin.documentNumber} {pin.documentTitle}
            </Link>
            , revision {pin.revisionCode}.
          </p>
          {pin.sheet ? (
            <div className="overflow-hidden rounded-lg border border-border bg-surface">
              <SheetView sheet={pin.sheet} pins={[pin]} zoom="fit" label={`Sheet ${pin.documentNumber}, revision ${pin.revisionCode}`} linkPins={false} highlight={pin.itemId} />
            </div>
          ) : (
            <p className="text-sm text-muted">Revision {pin.revisionCode} has no sheet to show: move the pin when a drawing is issued again.</p>
          )}
        </>
      ) : null}
    </Section>
  )
}
