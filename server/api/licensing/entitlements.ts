import { Hono } from 'hono'
import { entitlementsOf } from '#server/domain/licensing/entitlements-me'
import { asMember } from '#server/domain/tenancy/context'
import { operation } from '#server/http/contract'
import type { BackendEnv } from '#server/http/env'
import { requireSession } from '#server/http/session'
import { EntitlementsSchema } from '~/lib/schemas/licensing'

/** Spec §7 "Billing": GET /api/entitlements/me (issue 16, docs/licensing.md "Entitlements"). */
export const entitlementRoutes = new Hono<BackendEnv>().get(
  '/api/entitlements/me',
  operation({
    summary: 'What you and your organisation may use: the plan in force, its features and limits, and the seats',
    tag: 'Billing',
    access: 'session',
    responses: {
      200: {
        description: 'A licence that is cancelled, expired or past validUntilUtc has `lapsed`: the free plan’s entitlements apply (plan shows free, licensedPlan the one bought).',
        schema: EntitlementsSchema,
      },
      403: 'The membership of this organisation is not active.',
    },
  }),
  async (c) => {
    const { db, now } = c.get('deps')
    return c.json(await asMember(db, requireSession(c), now(), entitlementsOf))
  },
)
