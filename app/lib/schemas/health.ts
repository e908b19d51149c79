import { z } from 'zod'

/**
 * The health calls orchestrators use (docs/operations.md "Metrics, health and tracing"): liveness
 * says the process answers, readiness that it can serve (database, Redis when configured, blob
 * store). `GET /api/health` keeps its own older answer.
 */

export const LivenessSchema = z.object({ status: z.literal('ok') })
export type Liveness = z.infer<typeof LivenessSchema>

const PartStatusSchema = z.enum(['up', 'down']).describe('down: it failed or did not answer in time (the server log says why).')

export const ReadinessChecksSchema = z.object({
  database: PartStatusSchema,
  redis: PartStatusSchema.optional().describe('Only when REDIS_URL is set.'),
  blobStore: PartStatusSchema,
})

export const ReadinessSchema = z.object({ status: z.literal('ready'), checks: ReadinessChecksSchema })

/** 503: RFC 9457 problem details naming what is down, or saying the instance is shutting down. */
export const NotReadyProblemSchema = z.object({
  type: z.string(),
  title: z.string(),
  status: z.literal(503),
  detail: z.string(),
  instance: z.string(),
  correlationId: z.string(),
  code: z.literal('KR_NOT_READY'),
  remediation: z.string().optional(),
  draining: z.boolean().describe('The instance is shutting down: it finishes what it has and takes nothing new.'),
  checks: ReadinessChecksSchema.optional().describe('Each part’s status; absent while draining, which checks nothing.'),
})

export type ReadinessChecks = z.infer<typeof ReadinessChecksSchema>
