import { z } from 'zod'
import { DocumentSchema } from './documents-responses'
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

export const RenumberAnswerSchema = z.object({
  document: DocumentSchema,
  /** How many people who received it by transmittal have a mail about it in the outbox. */
  told: z.number().int().min(0),
})

/** POST /api/transmittals/{id}/send: `confirmPurpose` is the second submit after the purpose warning. */
export const TransmittalSendSchema = z.object({
  confirmPurpose: z.boolean({ error: 'confirmPurpose is true or false.' }).optional(),
})

/** The purpose check kept on a transmittal: the warnings shown, who confirmed sending anyway, and when. */
export const PurposeCheckSchema = z.object({ warnings: z.array(z.string()), confirmedBy: UserRefSchema.nullable(), confirmedAtUtc: utc.nullable() })
