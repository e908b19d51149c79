import { z } from 'zod'
import { EXPORT_JOB_KINDS, EXPORT_JOB_STATUSES, type ExportEstimate, type ExportJob } from '~/lib/exports/types'

/** docs/exports.md "Large exports as a job": the answers of the export job calls. */

const at = z.iso.datetime().describe('ISO 8601, UTC.')
const count = z.number().int().min(0)

export const ExportJobSchema = z
  .object({
    id: z.uuid(),
    kind: z.enum(EXPORT_JOB_KINDS),
    title: z.string(),
    status: z.enum(EXPORT_JOB_STATUSES),
    percent: z.number().min(0).max(100),
    itemsDone: count,
    itemsTotal: count,
    sizeBytes: count.nullable(),
    error: z.string().nullable(),
    notify: z.boolean(),
    downloadUrl: z.string().nullable(),
    expiresAt: at.nullable(),
    expired: z.boolean(),
    returnTo: z.string(),
    startedAt: at,
    finishedAt: at.nullable(),
  })
  .meta({ id: 'ExportJob' }) satisfies z.ZodType<ExportJob>

/** GET /api/exports: the caller's own export jobs, newest first, a page at a time. */
export const ExportJobPageSchema = z
  .object({
    items: z.array(ExportJobSchema),
    nextCursor: z.string().nullable().describe('Pass as `after` for the next (older) page; null on the last page.'),
  })
  .meta({ id: 'ExportJobPage' })

export const ExportEstimateSchema = z
  .object({
    kind: z.enum(EXPORT_JOB_KINDS),
    items: count,
    photos: count,
    asJob: z.boolean(),
    limits: z.object({ items: count, photos: count }),
  })
  .meta({ id: 'ExportEstimate' }) satisfies z.ZodType<ExportEstimate>
