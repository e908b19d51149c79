import { z } from 'zod'

/** /admin/join-requests's forms (docs/admin/join-requests-and-devices.md); in the browser only their HTML constraints (vite.config.ts clientSchemas). */

export const ApproveFormSchema = z.object({
  requestId: z.uuid({ error: 'Choose a request.' }),
  roleKey: z.enum(['read-only', 'read-write', 'admin'], { error: 'Choose a role.' }),
})

export const DeclineFormSchema = z.object({
  requestId: z.uuid({ error: 'Choose a request.' }),
  reason: z.string({ error: 'Give a reason: the person reads it.' }).trim().min(1, 'Give a reason: the person reads it.').max(500, 'The reason is at most 500 characters.'),
})
