import { z } from 'zod'
import { CDE_STATES, PERMISSION_LEVELS, type DocumentDetail } from '~/lib/documents/types'
import { ISSUE_PURPOSES, TRANSMITTAL_STATUSES } from '~/lib/doc-control/types'
import { UserRefSchema } from './reporting-responses'

/**
 * The calls and forms of the rule book (docs/doc-control.md "The rule book"): Renumber, and the
 * purpose check on sending a transmittal, with the answers they are declared with in
 * /api/openapi.json. Objects are not strict, so a field added later is not a mismatch.
 */

export const RENUMBER_REASON_MAX = 500

/** POST /api/documents/{id}/renumber, and the "Renumber" form on the document page. */
export const RenumberSchema = z.object({
  number: z.string({ error: 'Give the new number.' }).trim().min(1, 'Give the new number.').max(100, 'A document number is at most 100 characters.'),
  reason: z
    .string({ error: 'Say why the document is renumbered: its recipients are told.' })
    .trim()
    .min(1, 'Say why the document is renumbered: its recipients are told.')
    .max(RENUMBER_REASON_MAX, `The reason is at most ${RENUMBER_REASON_MAX} characters.`),
})

const utc = z.iso.datetime()

const RevisionSchema = z.object({
  id: z.uuid(),
  documentId: z.uuid(),
  version: z.number().int().min(1),
  code: z.string(),
  status: z.string(),
  comment: z.string().nullable(),
  issuedBy: UserRefSchema.nullable(),
  issuedAtUtc: utc,
  fileName: z.string(),
  contentType: z.string(),
  sizeBytes: z.number().int().min(0),
  sha256: z.string(),
  sheet: z.object({ width: z.number(), height: z.number() }).nullable(),
  superseded: z.boolean(),
  supersededAtUtc: utc.nullable(),
  supersededBy: z.object({ id: z.uuid(), code: z.string() }).nullable(),
  downloadUrl: z.string(),
})

export const DocumentDetailSchema = z.object({
  id: z.uuid(),
  projectId: z.uuid(),
  folderId: z.uuid().nullable(),
  number: z.string(),
  title: z.string(),
  discipline: z.string(),
  docType: z.string(),
  status: z.string(),
  state: z.enum(CDE_STATES),
  currentRevision: z.object({ id: z.uuid(), code: z.string(), status: z.string(), issuedAtUtc: utc }).nullable(),
  updatedAtUtc: utc,
  metadata: z.record(z.string(), z.union([z.string(), z.number()])),
  breadcrumbs: z.array(z.object({ id: z.uuid(), name: z.string() })),
  revisions: z.array(RevisionSchema),
  createdBy: UserRefSchema.nullable(),
  createdAtUtc: utc,
  access: z.enum(PERMISSION_LEVELS),
  revision: z.number().int().min(0),
  numberLocked: z.boolean(),
  renumbers: z.array(z.object({ atUtc: utc, by: UserRefSchema.nullable(), from: z.string(), to: z.string(), reason: z.string(), told: z.number().int().min(0) })),
}) satisfies z.ZodType<DocumentDetail>

export const RenumberAnswerSchema = z.object({
  document: DocumentDetailSchema,
  /** How many people who received it by transmittal have a mail about it in the outbox. */
  told: z.number().int().min(0),
})

/** POST /api/transmittals/{id}/send: `confirmPurpose` is the second submit after the purpose warning. */
export const TransmittalSendSchema = z.object({
  confirmPurpose: z.boolean({ error: 'confirmPurpose is true or false.' }).optional(),
})

/** The purpose check kept on a transmittal: the warnings shown, who confirmed sending anyway, and when. */
export const PurposeCheckSchema = z.object({ warnings: z.array(z.string()), confirmedBy: UserRefSchema.nullable(), confirmedAtUtc: utc.nullable() })

/** A transmittal as the send call answers it (the fields people read; the rest as in the type). */
export const TransmittalAnswerSchema = z.object({
  id: z.uuid(),
  projectId: z.uuid(),
  number: z.string(),
  subject: z.string(),
  purpose: z.enum(ISSUE_PURPOSES),
  status: z.enum(TRANSMITTAL_STATUSES),
  sentAt: utc.nullable(),
  revisions: z.array(z.object({ revisionId: z.uuid(), documentId: z.uuid(), number: z.string(), title: z.string(), code: z.string(), status: z.string(), state: z.string() })),
  purposeCheck: PurposeCheckSchema.nullable(),
})
