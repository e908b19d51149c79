/**
 * The site-reporting API's JSON shapes (docs/site-reporting.md), shared by the backend, which
 * builds them, and the web app, which reads them. Times are UTC ISO strings named …AtUtc.
 */

export type UserRef = { id: string; displayName: string }

export type Page<T> = { items: T[]; nextCursor: string | null }

export type Project = {
  id: string
  /** null: shown as "Untitled Project" (spec §3). */
  title: string | null
  code: string | null
  status: 'active' | 'archived'
  archivedAtUtc: string | null
  createdBy: UserRef | null
  createdAtUtc: string
  updatedAtUtc: string
  revision: number
}

export type ItemCounts = { open: number; closeRequested: number; closed: number }

export type Report = {
  id: string
  projectId: string
  projectTitle: string | null
  /** null: shown as "Untitled Report" (spec §3). */
  title: string | null
  status: 'active' | 'archived'
  archivedAtUtc: string | null
  createdBy: UserRef | null
  createdAtUtc: string
  updatedAtUtc: string
  revision: number
  itemCounts: ItemCounts
}

export const ITEM_STATUSES = ['open', 'close_requested', 'closed'] as const
export type ItemStatus = (typeof ITEM_STATUSES)[number]
export const ITEM_PRIORITIES = ['low', 'medium', 'high', 'critical'] as const
export type ItemPriority = (typeof ITEM_PRIORITIES)[number]

/** Who must act next ("ball in court"). */
export type NextAction = { by: 'assignee' | 'verifier' | 'none'; user: UserRef | null; label: string }

export type Item = {
  id: string
  number: number
  reportId: string
  reportTitle: string | null
  projectId: string
  projectTitle: string | null
  title: string
  description: string | null
  status: ItemStatus
  priority: ItemPriority
  assignee: UserRef | null
  packageKey: string | null
  location: string | null
  /** YYYY-MM-DD */
  dueDate: string | null
  overdue: boolean
  createdBy: UserRef | null
  closedAtUtc: string | null
  closedBy: UserRef | null
  createdAtUtc: string
  updatedAtUtc: string
  revision: number
  nextAction: NextAction
}

export type ItemResponse = {
  id: string
  itemId: string
  kind: 'response' | 'close_confirmed' | 'close_rejected'
  author: UserRef | null
  body: string | null
  requestClose: boolean
  photoIds: string[]
  createdAtUtc: string
}

export type ActivityEntry = {
  id: string
  itemId: string
  action: 'created' | 'updated' | 'responded' | 'close_requested' | 'closed' | 'reopened' | 'deleted'
  actor: UserRef | null
  changes: Array<{ field: string; from: unknown; to: unknown }>
  /** Why: the reason given when a close was rejected (`reopened`); null otherwise. */
  reason: string | null
  createdAtUtc: string
}

export type PackageInfo = { key: string; name: string; active: boolean }

export type Member = { userId: string; displayName: string; email: string; roleKey: 'admin' | 'read-write' | 'read-only' }

export type SavedView = {
  id: string
  name: string
  scope: 'personal' | 'shared'
  /** The items screen's URL query, without the leading "?". */
  query: string
  owner: UserRef | null
  createdAtUtc: string
  updatedAtUtc: string
}

export type BulkResult = { results: Array<{ id: string; ok: boolean; error?: string }> }

export type DashboardFigures = {
  openCount: number
  awaitingMyConfirmationCount: number
  overdueCount: number
  assignedToMeCount: number
  recentActivity: Array<ActivityEntry & { item: { id: string; number: number; title: string } }>
}

export const UNTITLED_PROJECT = 'Untitled Project'
export const UNTITLED_REPORT = 'Untitled Report'

export function projectTitle(title: string | null | undefined): string {
  return title?.trim() ? title : UNTITLED_PROJECT
}

export function reportTitle(title: string | null | undefined): string {
  return title?.trim() ? title : UNTITLED_REPORT
}
