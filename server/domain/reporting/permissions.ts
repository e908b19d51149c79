import { Problem } from '#server/http/problem'
import type { Actor } from '../tenancy/context'

/**
 * Who may do what in site reporting (docs/site-reporting.md has the table). Read-only members
 * read; read-write members record and respond; administrators manage. Closing is verified by the
 * item's creator or an administrator, never by whoever asked for it to be closed alone.
 */
export type ReportingAction =
  | 'read'
  | 'project.create'
  | 'project.rename'
  | 'project.archive'
  | 'report.create'
  | 'report.rename'
  | 'report.archive'
  | 'item.create'
  | 'item.edit'
  | 'item.respond'
  | 'item.verify'
  | 'item.delete'
  | 'view.create-personal'
  | 'view.create-shared'
  | 'view.manage'

/** The record an action is about: its creator (or a view's owner). */
export type Owned = { createdBy: string | null }

export function can(actor: Actor, action: ReportingAction, target?: Owned): boolean {
  const admin = actor.roleKey === 'admin'
  const writer = admin || actor.roleKey === 'read-write'
  const own = target !== undefined && target.createdBy === actor.userId
  switch (action) {
    case 'read':
    case 'view.create-personal':
      return true
    case 'project.create':
    case 'project.rename':
    case 'report.create':
    case 'report.rename':
    case 'item.create':
    case 'item.edit':
    case 'item.respond':
    case 'view.create-shared':
      return writer
    case 'project.archive':
      return admin
    case 'report.archive':
    case 'item.verify':
    case 'item.delete':
      return admin || (writer && own)
    case 'view.manage':
      return admin || own
  }
}

export function ensure(actor: Actor, action: ReportingAction, target?: Owned): void {
  if (!can(actor, action, target)) {
    throw new Problem({ status: 403, title: 'Forbidden', detail: 'You do not have permission to perform this action.', code: 'KR_FORBIDDEN' })
  }
}
