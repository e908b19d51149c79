import type { ShouldRevalidateFunctionArgs } from 'react-router'

/**
 * A screen's `shouldRevalidate` where a save can be refused as stale (409 KR_EDIT_CONFLICT, or a
 * state that changed). React Router reads no loader again after an action answered 4xx, so with
 * JavaScript the screen kept showing the record as it was opened, and the message "Changed by …
 * since you opened it" asked the person to check changes the screen did not show (a live update
 * that arrived while their save was under way is skipped). After a 409 the screen reads its data
 * again; the form keeps what was typed (its values come from the action's answer).
 */
export function revalidateAfterConflict({ actionStatus, defaultShouldRevalidate }: ShouldRevalidateFunctionArgs): boolean {
  return actionStatus === 409 || defaultShouldRevalidate
}
