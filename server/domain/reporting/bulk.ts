import type { Database } from '#server/db/client'
import { Problem, problems } from '#server/http/problem'
import type { BulkResult } from '~/lib/reporting/types'
import { asMember, type DomainContext } from '../tenancy/context'
import { activeMember, deleteItem, updateItem } from './items'
import type { MailLinks } from './item-mail'
import { createResponse } from './responses'

export type BulkAction =
  | { action: 'assign'; assigneeUserId: string | null }
  | { action: 'package'; packageKey: string | null }
  | { action: 'request-close'; body: string }
  | { action: 'delete' }

/**
 * POST /api/items/bulk. Each id is handled exactly as the single-item call would handle it (its
 * permissions, its validation, its activity and change-log entry) in a transaction of its own:
 * one item that fails (not found, forbidden, a package not used on its project, already closed)
 * is reported in its result and does not undo the others. An all-or-nothing call would make a
 * site manager's 200-item reassignment fail on one item somebody else just deleted.
 *
 * Results come back in the order of `ids`, one per distinct id; `error` is the problem code the
 * single-item call would have answered (KR_NOT_FOUND, KR_FORBIDDEN, KR_VALIDATION, …).
 */
export async function bulkItems(
  db: Database,
  session: { tenantId: string; userId: string },
  now: Date,
  ids: string[],
  action: BulkAction,
  onUnexpected: (error: unknown, id: string) => void,
  links: MailLinks,
): Promise<BulkResult> {
  // Up front, once: a member who is no longer active is refused outright (403), as is an assignee
  // who is not an active member (400), before any item is touched.
  await asMember(db, session, now, async (ctx) => {
    if (action.action === 'assign' && action.assigneeUserId !== null && !(await activeMember(ctx, action.assigneeUserId))) {
      throw new Problem(problems.badRequest('Some fields are not valid.', { assigneeUserId: ['Choose an active member of the organisation.'] }))
    }
  })

  const results: BulkResult['results'] = []
  for (const id of new Set(ids)) {
    try {
      await asMember(db, session, now, (ctx) => applyTo(ctx, id, action, links))
      results.push({ id, ok: true })
    } catch (error) {
      if (error instanceof Problem) {
        results.push({ id, ok: false, error: error.init.code ?? 'KR_ERROR' })
      } else {
        onUnexpected(error, id)
        results.push({ id, ok: false, error: 'KR_INTERNAL' })
      }
    }
  }
  return { results }
}

async function applyTo(ctx: DomainContext, id: string, action: BulkAction, links: MailLinks): Promise<void> {
  switch (action.action) {
    case 'assign':
      await updateItem(ctx, id, { assigneeUserId: action.assigneeUserId }, links)
      return
    case 'package':
      await updateItem(ctx, id, { packageKey: action.packageKey }, links)
      return
    case 'request-close':
      await createResponse(ctx, id, { body: action.body, requestClose: true }, links)
      return
    case 'delete':
      await deleteItem(ctx, id)
      return
  }
}
