import type { ReportingActionData } from '~/components/reporting/report-action'

/**
 * What the document screens' actions answer besides conform's reply and a notice (see
 * ~/components/reporting/report-action, whose helpers they share).
 */

/**
 * A form whose file goes through the upload island asks the action first (the document created,
 * the revision checked); this says where the file goes now and as what.
 */
export type ReadyUpload = { documentId: string; code: string; status: string; comment: string | null }

/** "Check name": the number checked and whether it passed (its problems are the field's errors). */
export type NameCheck = { number: string; valid: boolean }

export type DocumentsActionData = ReportingActionData & { ready?: ReadyUpload; nameCheck?: NameCheck; permissionsKept?: KeptPermissions }

/** The permissions form as the user left it, after a stale save (409 KR_EDIT_CONFLICT): shown again instead of the saved entries. */
export type KeptPermissions = { entries: Array<{ key: string; level: string }>; addSubject: string; addLevel: string }

/** The intent of the second step of a resumable form: its file is stored; and when it was not. */
export const UPLOAD_FINISHED = 'upload-finished'
export const UPLOAD_REFUSED = 'upload-refused'
