import { z } from 'zod'
import { WEB_SCHEMA_INCIDENTS_MAX } from '~/lib/admin/schema-incidents'

/**
 * What the browser's API client reports when an answer does not match the contract
 * (app/lib/api/answer-check.ts → POST /telemetry/schema-incidents): the call, the field, what the
 * contract expected and a description of what came (its type, never its value).
 */

const short = (max: number) => z.string().max(max)

export const WebSchemaIncidentSchema = z.object({
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
  /** The call's path template as the contract writes it, e.g. /api/items/{id}. */
  path: z.string().max(300).regex(/^\/(api|auth|telemetry|invite)\/[A-Za-z0-9{}/._-]*$/, { error: 'path is a path template of the contract.' }),
  status: z.number().int().min(200).max(299),
  field: short(200),
  expected: short(200),
  got: short(200),
  correlationId: short(100).nullish(),
})

export const WebSchemaIncidentBatchSchema = z.object({
  incidents: z.array(WebSchemaIncidentSchema).min(1).max(WEB_SCHEMA_INCIDENTS_MAX),
})

export const WebSchemaIncidentReceiptSchema = z
  .object({ accepted: z.number().int().min(0) })
  .meta({ id: 'SchemaIncidentReceipt', description: 'How many of the reported mismatches were stored (the hourly cap per call and field drops the rest).' })

export type WebSchemaIncident = z.infer<typeof WebSchemaIncidentSchema>
