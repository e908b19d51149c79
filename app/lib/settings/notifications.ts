/**
 * GET and PUT /api/user/notification-preferences/: which events mail the member (the flat flags)
 * and which are shown in the app (`inApp`: the header's bell and /notifications), in their current
 * organisation.
 */
export type NotificationPreferences = {
  assigned: boolean
  response: boolean
  closeRequested: boolean
  reviewTask: boolean
  transmittal: boolean
  digest: DigestFrequency
  inApp: InAppPreferences
}

/** The events the app can tell a member about (the bell); `superseded` has no mail. */
export const IN_APP_EVENTS = ['assigned', 'closeRequested', 'reviewTask', 'transmittal', 'superseded'] as const
export type InAppEvent = (typeof IN_APP_EVENTS)[number]
export type InAppPreferences = Record<InAppEvent, boolean>

export const DIGEST_FREQUENCIES = ['daily', 'off'] as const
export type DigestFrequency = (typeof DIGEST_FREQUENCIES)[number]

/** The events a member can switch (the digest aside), in the order the screen shows them. */
export const NOTIFICATION_EVENTS = ['assigned', 'response', 'closeRequested', 'reviewTask', 'transmittal'] as const

/** Without a saved row: every event mails, no digest (server/db/schema-settings.ts has the same defaults). */
export const DEFAULT_NOTIFICATION_PREFERENCES: NotificationPreferences = {
  assigned: true,
  response: true,
  closeRequested: true,
  reviewTask: true,
  transmittal: true,
  digest: 'off',
  inApp: { assigned: true, closeRequested: true, reviewTask: true, transmittal: true, superseded: true },
}

export const NOTIFICATION_LABELS: Record<(typeof NOTIFICATION_EVENTS)[number], { label: string; help: string }> = {
  assigned: { label: 'An item is assigned to me', help: 'When someone makes you the assignee of an item.' },
  response: { label: 'Someone responds on my items', help: 'Items assigned to you or that you raised.' },
  closeRequested: { label: 'Someone asks to close an item I verify', help: 'Items you raised (administrators: items nobody else can verify).' },
  reviewTask: { label: 'A document review is waiting for me', help: 'Review tasks of document workflows, and their due-date reminders.' },
  transmittal: { label: 'A transmittal is sent to me', help: 'Document transmittals addressed to you.' },
}

/** The in-app choices on the screen, in its order (labels of the mail events where they share one). */
export const IN_APP_LABELS: Record<InAppEvent, { label: string; help: string }> = {
  assigned: NOTIFICATION_LABELS.assigned,
  closeRequested: NOTIFICATION_LABELS.closeRequested,
  reviewTask: NOTIFICATION_LABELS.reviewTask,
  transmittal: NOTIFICATION_LABELS.transmittal,
  superseded: { label: 'A document I received is superseded', help: 'A newer revision replaces one that was sent to you by transmittal.' },
}
