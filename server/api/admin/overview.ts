import { Hono } from 'hono'
import { exposedDemoAccounts } from '#server/domain/admin/demo-accounts'
import { adminOverview } from '#server/domain/admin/overview'
import { getRetentionPolicy, putRetentionPolicy, retentionHealth } from '#server/domain/config/retention'
import type { BackendEnv } from '#server/http/env'
import { operation } from '#server/http/contract'
import { AdminOverviewSchema, RetentionHealthSchema, RetentionPolicyAnswerSchema } from '~/lib/schemas/admin-responses'
import { RetentionPolicySchema, type AdminOverview } from '~/lib/schemas/admin-retention'
import { runAdmin } from './run'
import { STALE_WRITE } from '~/lib/schemas/edit-conflict'

/**
 * docs/admin/shell-and-retention.md: the control panel's figures and the retention policy with its
 * health. Administrators of the organisation only (403 for anyone else).
 */
export const adminOverviewRoutes = new Hono<BackendEnv>()
  .get(
    '/api/admin/overview',
    operation({
      summary: 'The control panel: active users, seats, pending invites and join requests, failing mail, storage, retention health',
      tag: 'Administration',
      access: 'admin',
      responses: {
        200: {
          description:
            'The figures; `demoAccounts`: the demo accounts (published passwords) present while this server is reached at an address other than a loopback one, to be removed (empty when none).',
          schema: AdminOverviewSchema,
        },
        403: 'Not an administrator of the organisation.',
      },
    }),
    async (c) => {
      const overview = await runAdmin(c, adminOverview)
      const { db, config } = c.get('deps')
      return c.json({ ...overview, demoAccounts: await exposedDemoAccounts(db, config.publicUrl) } satisfies AdminOverview)
    },
  )
  .get(
    '/api/admin/retention',
    operation({
      summary: 'The retention policy of the organisation (the defaults, switched off, until one is saved)',
      tag: 'Administration',
      access: 'admin',
      responses: { 200: { description: 'The policy (the defaults while never saved: updatedAtUtc null).', schema: RetentionPolicyAnswerSchema }, 403: 'Not an administrator of the organisation.' },
    }),
    async (c) => c.json(await runAdmin(c, getRetentionPolicy)),
  )
  .put(
    '/api/admin/retention',
    operation({
      summary: 'Set the retention policy: archive closed items after N days, purge after M (M > N)',
      tag: 'Administration',
      access: 'admin',
      body: RetentionPolicySchema,
      responses: {
        200: { description: 'The policy as saved.', schema: RetentionPolicyAnswerSchema },
        400: 'A field is not valid: see errors (archiveAfterDays 1 to 3650; purgeAfterDays above it, at most 36500).',
        403: 'Not an administrator of the organisation.',
        409: STALE_WRITE,
      },
    }),
    async (c) => {
      const input = c.req.valid('json')
      return c.json(await runAdmin(c, (ctx) => putRetentionPolicy(ctx, input, { ip: c.get('ip'), correlationId: c.get('correlationId') })))
    },
  )
  .get(
    '/api/admin/retention/health',
    operation({
      summary: 'Retention health (spec §3): activeCount, archivedCount, purgedCount, dueCount, nextDueAtUtc',
      tag: 'Administration',
      access: 'admin',
      responses: { 200: { description: 'Retention health (spec §3).', schema: RetentionHealthSchema }, 403: 'Not an administrator of the organisation.' },
    }),
    async (c) =>
      c.json(
        await runAdmin(c, async (ctx) => {
          const { activeCount, archivedCount, purgedCount, dueCount, nextDueAtUtc } = await retentionHealth(ctx)
          return { activeCount, archivedCount, purgedCount, dueCount, nextDueAtUtc }
        }),
      ),
  )
