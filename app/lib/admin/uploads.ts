/**
 * Administration › Uploads (docs/admin/packages-and-uploads.md "Uploads"): the shapes of the
 * calls, shared by the backend and the screen.
 */

export const UPLOAD_STATES = ['open', 'completing', 'completed', 'aborted', 'expired', 'failed'] as const
export type AdminUploadState = (typeof UPLOAD_STATES)[number]

export const UPLOAD_PURPOSES = ['photo', 'revision', 'support'] as const
export type AdminUploadPurpose = (typeof UPLOAD_PURPOSES)[number]

/** An open session whose bytes have not moved for this long is "stuck" (docs/admin/packages-and-uploads.md). */
export const STUCK_AFTER_MS = 60 * 60_000

/** Admin lists: 50 a page (spec §9), at most 200. */
export const ADMIN_PAGE_SIZE = 50
export const ADMIN_PAGE_SIZE_MAX = 200

export type AdminUpload = {
  id: string
  purpose: AdminUploadPurpose
  /** As the owner would see it: an open or completing session past its expiry reads `expired`. */
  state: AdminUploadState
  fileName: string
  contentType: string
  size: number
  /** Bytes received so far. */
  offset: number
  who: { id: string; displayName: string } | null
  /** Open, and no byte arrived for over an hour. */
  stuck: boolean
  createdAtUtc: string
  updatedAtUtc: string
  expiresAtUtc: string
  completedAtUtc: string | null
  failureReason: string | null
}

export type AdminUploadStats = {
  open: number
  completing: number
  completed: number
  failed: number
  aborted: number
  expired: number
  /** Of the open ones, those stuck (see STUCK_AFTER_MS). */
  stuck: number
  /** Sizes of the completed uploads. */
  bytesCompleted: number
  /** Bytes received so far by the open and completing ones. */
  bytesInProgress: number
}

export const UPLOAD_STATE_LABELS: Record<AdminUploadState, string> = {
  open: 'Open',
  completing: 'Completing',
  completed: 'Completed',
  aborted: 'Aborted',
  expired: 'Expired',
  failed: 'Failed',
}

export const UPLOAD_PURPOSE_LABELS: Record<AdminUploadPurpose, string> = {
  photo: 'Photo',
  revision: 'Document revision',
  support: 'Support attachment',
}

const BYTE_UNITS = ['byte', 'kilobyte', 'megabyte', 'gigabyte', 'terabyte'] as const

/** A size for people, e.g. "12.5 MB", in the user's locale (powers of 1024, as storage quotas are). */
export function formatBytes(bytes: number, locale: string): string {
  let value = bytes
  let unit = 0
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024
    unit++
  }
  return new Intl.NumberFormat(locale, { style: 'unit', unit: BYTE_UNITS[unit], unitDisplay: 'short', maximumFractionDigits: unit === 0 ? 0 : 1 }).format(value)
}
