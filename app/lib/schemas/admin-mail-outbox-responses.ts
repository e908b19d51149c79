import { z } from 'zod'
import { MAIL_STATUSES, type MailMessageDetail, type MailMessageSummary, type MailTransportHealth, type MailTransportsResponse } from '~/lib/admin/mail-outbox'

/**
 * Administration › Mail outbox's answers (docs/admin/mail.md), as published in /api/openapi.json
 * (named components) and checked against every answer in the tests (schema incidents). They mirror
 * app/lib/admin/mail-outbox.ts; `satisfies` keeps the two together.
 */

const utc = z.iso.datetime().describe('ISO 8601, UTC.')
const count = z.number().int().min(0)

export const MailMessageSummarySchema = z
  .object({
    id: z.string(),
    to: z.string(),
    subject: z.string(),
    template: z.string(),
    status: z.enum(MAIL_STATUSES),
    attempts: count,
    lastError: z.string().nullable(),
    createdAtUtc: utc,
    sentAtUtc: utc.nullable(),
    nextAttemptAtUtc: utc,
    lastFailureUtc: utc.nullable(),
    transport: z.string().nullable().describe('instance, file or tenant:{id}.'),
    withoutOrganisation: z.boolean().describe('Mail of no organisation (a reset or registration asked from the sign-in page); listed to platform operators only.'),
  })
  .meta({ id: 'MailMessageSummary' }) satisfies z.ZodType<MailMessageSummary>

export const MailMessageDetailSchema = MailMessageSummarySchema.extend({
  textBody: z.string(),
  htmlBody: z.string().nullable(),
  claimedAtUtc: utc.nullable(),
  cancelledAtUtc: utc.nullable(),
}).meta({ id: 'MailMessageDetail' }) satisfies z.ZodType<MailMessageDetail>

export const MailOutboxPageSchema = z.object({
  items: z.array(MailMessageSummarySchema),
  nextCursor: z.string().nullable(),
  templates: z.array(z.string()).describe('The templates the organisation’s mail used, for the filter.'),
})

export const MailTransportHealthSchema = z
  .object({
    key: z.string(),
    kind: z.enum(['organisation', 'instance', 'file']),
    label: z.string(),
    description: z.string().nullable(),
    inUse: z.boolean(),
    failureCount: count,
    consecutiveFailures: count,
    lastFailureUtc: utc.nullable(),
    lastSuccessUtc: utc.nullable(),
    lastError: z.string().nullable(),
  })
  .meta({ id: 'MailTransportHealth' }) satisfies z.ZodType<MailTransportHealth>

export const MailTransportsSchema = z.object({ items: z.array(MailTransportHealthSchema), noTransport: z.boolean() }) satisfies z.ZodType<MailTransportsResponse>
