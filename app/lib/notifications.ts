import type { InAppEvent } from '~/lib/settings/notifications'

/**
 * In-app notifications (the header's bell, /notifications; docs/settings-appearance-notifications.md
 * "In-app notifications"): what kinds there are, which preference decides each, and how the bell
 * shows a count. Shared by the server and the screens.
 */

export const NOTIFICATION_KINDS = ['review-assigned', 'review-due', 'transmittal-received', 'item-assigned', 'close-requested', 'revision-superseded'] as const
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number]

/** The member's in-app choice that decides each kind (Settings › Notifications). */
export const PREFERENCE_OF_KIND: Record<NotificationKind, InAppEvent> = {
  'review-assigned': 'reviewTask',
  'review-due': 'reviewTask',
  'transmittal-received': 'transmittal',
  'item-assigned': 'assigned',
  'close-requested': 'closeRequested',
  'revision-superseded': 'superseded',
}

/** What each kind is called on /notifications (next to its title). */
export const KIND_LABELS: Record<NotificationKind, string> = {
  'review-assigned': 'Review assigned',
  'review-due': 'Review due',
  'transmittal-received': 'Transmittal received',
  'item-assigned': 'Item assigned',
  'close-requested': 'Close requested',
  'revision-superseded': 'Revision superseded',
}

/** The most the bell spells out; above it shows "99+". */
export const BELL_COUNT_MAX = 99

/** The bell's badge: nothing for none, the number up to 99, then "99+". */
export function badgeText(unread: number): string | null {
  if (!Number.isFinite(unread) || unread <= 0) return null
  return unread > BELL_COUNT_MAX ? `${BELL_COUNT_MAX}+` : String(Math.floor(unread))
}

/** The bell's accessible name, which says the count in words a screen reader reads well. */
export function bellLabel(unread: number): string {
  if (!Number.isFinite(unread) || unread <= 0) return 'Notifications, none unread'
  return `Notifications, ${unread > BELL_COUNT_MAX ? `more than ${BELL_COUNT_MAX}` : Math.floor(unread)} unread`
}

/**
 * A link a notification may carry: a path of this portal (never another site, never a protocol-
 * relative `//host`), so following one cannot leave the portal.
 */
export function isPortalPath(link: string): boolean {
  return link.startsWith('/') && !link.startsWith('//') && !link.startsWith('/\\') && !/[\r\n\t]/.test(link)
}

/** NotificationsChanged's one argument (the hub's event to one person's connections): their unread count now. */
export type NotificationsChanged = { unread: number }
export const NOTIFICATIONS_CHANGED_EVENT = 'NotificationsChanged'
