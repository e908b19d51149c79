import { z } from 'zod'
import { expectedRevision, recordRevision } from './edit-conflict'
import { TRANSMITTAL_FORMAT_MAX, type TransmittalNumbering } from '~/lib/doc-control/transmittal-numbering'

/**
 * How a project numbers its transmittals (docs/doc-control.md "Transmittal numbers"): the body of
 * PUT /api/projects/{projectId}/transmittal-numbering and of the Transmittals screen's numbering
 * form, and the answer of both calls. The format's own checks (placeholders, one sequence) are the
 * domain's, answered as field errors on `format`.
 */

export const TransmittalNumberingPutSchema = z.object({
  format: z
    .string({ error: 'Give the format: for example {project}-TRN-{seq:4}.' })
    .trim()
    .min(1, 'Give the format: for example {project}-TRN-{seq:4}.')
    .max(TRANSMITTAL_FORMAT_MAX, `The format is at most ${TRANSMITTAL_FORMAT_MAX} characters.`),
  expectedRevision,
})

export const TransmittalNumberingSchema = z
  .object({
    projectId: z.uuid(),
    format: z.string(),
    defaultFormat: z.string(),
    namingCode: z.string(),
    nextSeq: z.number().int().min(1),
    nextNumber: z.string(),
    canChange: z.boolean(),
    updatedAtUtc: z.iso.datetime().nullable(),
    updatedByName: z.string().nullable(),
    revision: recordRevision,
  })
  .meta({ id: 'TransmittalNumbering' }) satisfies z.ZodType<TransmittalNumbering>
