import type { Database } from '#server/db/client'

/** The events a member can choose to be mailed about (/settings/notifications). */
export type NotificationEvent = 'assigned' | 'response' | 'closeRequested' | 'reviewTask' | 'transmittal'

/**
 * Whether this member wants mail for this event (their notification preferences; on by default).
 * STUB: the notifications work implements it; callers that mail members about these events ask it first.
 */
export async function wantsMail(_db: Database, _tenantId: string, _userId: string, _event: NotificationEvent): Promise<boolean> {
  return true
}
