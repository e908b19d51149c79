import { Hono, type Context } from 'hono'
import { STALE_WRITE } from '~/lib/schemas/edit-conflict'
import { runAdmin } from '#server/api/admin/run'
import { createInvite, listInvites } from '#server/domain/admin/invites'
import type { RequestMeta } from '#server/domain/admin/invites-shared'
import { sessionView } from '#server/domain/auth/sessions'
import { isPlatformOperator, operatorChangeLicence, operatorReadLicence } from '#server/domain/licensing/operator'
import { createOrganisation, listMyOrganisations } from '#server/domain/licensing/organisations'
import { switchOrganisation } from '#server/domain/auth/organisation-switch'
import { readLicence } from '#server/domain/licensing/licence'
import { listSeats } from '#server/domain/licensing/seats'
import { revokeSeat } from '#server/domain/admin/seat-revoke'
import type { DomainContext } from '#server/domain/tenancy/context'
import { operation } from '#server/http/contract'
import { InvitePageSchema, InviteSchema } from '~/lib/schemas/admin-responses'
import { SessionSchema } from '~/lib/schemas/auth-responses'
import type { BackendEnv } from '#server/http/env'
import { idempotent } from '#server/http/idempotency'
import { Problem, problems } from '#server/http/problem'
import { requireSession } from '#server/http/session'
import {
  AdminInviteSchema,
  CreatedOrganisationSchema,
  LicencePatchSchema,
  LicenceSchema,
  MyOrganisationSchema,
  SeatInviteSchema,
  SeatListQuerySchema,
  SeatCountsSchema,
  SeatPageSchema,
  SeatParam,
  TenantCreateSchema,
  TenantParam,
} from '~/lib/schemas/licensing'
import { z } from 'zod'

/**
 * Spec §7 "Invites and tenants" (issue 16, docs/licensing.md): organisations, their licence and
 * seats. Seat and admin invites are invites of server/domain/admin/invites.ts (one thing, one mail,
 * one accept flow); the licence changes only through billing events or a platform operator.
 */

const TAG = 'Invites and tenants'

function meta(c: Context<BackendEnv>): RequestMeta {
  return { ip: c.get('ip'), correlationId: c.get('correlationId'), publicUrl: c.get('deps').config.publicUrl }
}

const otherOrganisation = () => new Problem(problems.notFound('There is no such organisation, or it is not the one you are signed in to.'))

/** The administrator's calls of one organisation: only the one the session is in (404 otherwise), then 403 for a non-admin. */
function asTenantAdmin<T>(c: Context<BackendEnv>, tenantId: string, work: (ctx: DomainContext) => Promise<T>): Promise<T> {
  const session = requireSession(c)
  if (tenantId !== session.tenantId) throw otherOrganisation()
  return runAdmin(c, work)
}

async function isOperator(c: Context<BackendEnv>): Promise<boolean> {
  const { db, config } = c.get('deps')
  return isPlatformOperator(db, config.platformOperatorEmails, requireSession(c).userId)
}

const tenantAdminResponses = {
  403: 'Not an administrator of this organisation.',
  404: 'Not the organisation the session is in (another organisation’s id answers 404).',
}
const inviteResponses = {
  201: { description: 'The invite (status pending): one seat reserved, the link mailed (as POST /api/admin/invites).', schema: InviteSchema },
  400: 'The fields have problems: see errors.',
  ...tenantAdminResponses,
  409: 'A member already (KR_ALREADY_MEMBER), a pending invite already (KR_INVITE_PENDING), or no free seat (KR_SEATS_EXHAUSTED, title "No free seat", with `seats`).',
}

export const tenantRoutes = new Hono<BackendEnv>()
  .post(
    '/api/tenants',
    operation({
      summary: 'Create an organisation: you become its first administrator; it starts on the free plan',
      tag: TAG,
      access: 'session',
      body: TenantCreateSchema,
      idempotent: true,
      responses: {
        201: { description: 'The organisation. Switch to it with POST /api/tenants/{tenantId}/switch.', schema: CreatedOrganisationSchema },
        400: 'The fields have problems: see errors.',
        409: 'The chosen slug is taken (KR_SLUG_TAKEN, errors.slug).',
      },
    }),
    idempotent,
    async (c) => {
      const session = requireSession(c)
      const { db, now } = c.get('deps')
      const input = c.req.valid('json')
      return c.json(await createOrganisation(db, { name: input.name, slug: input.slug, adminUserId: session.userId, isDefault: false }, meta(c), now()), 201)
    },
  )
  .get(
    '/api/tenants',
    operation({
      summary: 'Your organisations: role, membership status, and which one this session is in',
      tag: TAG,
      access: 'session',
      responses: { 200: { description: '`{ items }`, by name.', schema: z.object({ items: z.array(MyOrganisationSchema) }) } },
    }),
    async (c) => c.json({ items: await listMyOrganisations(c.get('deps').db, requireSession(c)) }),
  )
  .post(
    '/api/tenants/:tenantId/switch',
    operation({
      summary: 'Move this session into another of your organisations (an active membership)',
      tag: TAG,
      access: 'session',
      params: TenantParam,
      idempotent: true,
      responses: {
        200: { description: 'The session, now in that organisation.', schema: SessionSchema },
        403: 'The membership is suspended (KR_MEMBERSHIP_SUSPENDED), or the organisation asks for a second factor: sign in to it (KR_MFA_REQUIRED_TO_SWITCH).',
        404: 'Not a member of such an organisation.',
      },
    }),
    idempotent,
    async (c) => {
      const session = requireSession(c)
      const { db, now, config } = c.get('deps')
      await switchOrganisation(db, session, c.req.valid('param').tenantId, meta(c), now())
      return c.json(await sessionView(db, session, c.get('correlationId'), config.featureFlags))
    },
  )
  .get(
    '/api/tenants/:tenantId/license',
    operation({
      summary: 'The organisation’s licence: plan, seats, valid until, status, and what set it',
      tag: TAG,
      access: 'admin',
      alsoPlatformOperator: true,
      params: TenantParam,
      responses: {
        200: { description: 'The licence (the free plan’s default when none was ever set: source default). A platform operator may read any organisation’s.', schema: LicenceSchema },
        ...tenantAdminResponses,
      },
    }),
    async (c) => {
      const { tenantId } = c.req.valid('param')
      const session = requireSession(c)
      if (tenantId !== session.tenantId && (await isOperator(c))) return c.json(await operatorReadLicence(c.get('deps').db, tenantId))
      return c.json(await asTenantAdmin(c, tenantId, (ctx) => readLicence(ctx.tx, tenantId)))
    },
  )
  .patch(
    '/api/tenants/:tenantId/license',
    operation({
      summary: 'Change an organisation’s licence (platform operators only: PLATFORM_OPERATOR_EMAILS)',
      tag: TAG,
      access: 'operator',
      params: TenantParam,
      body: LicencePatchSchema,
      idempotent: true,
      responses: {
        200: { description: 'The licence as changed (source operator); audited in the organisation.', schema: LicenceSchema },
        400: 'The fields have problems: see errors.',
        403: 'Not a platform operator (KR_OPERATOR_ONLY) — administrators of the organisation included: billing changes their licence.',
        404: 'No such organisation.',
        409: STALE_WRITE,
      },
    }),
    idempotent,
    async (c) => {
      // Only a platform operator gets here: operation() refused anyone else before reading the body.
      const session = requireSession(c)
      const { db, now } = c.get('deps')
      return c.json(await operatorChangeLicence(db, c.req.valid('param').tenantId, c.req.valid('json'), { userId: session.userId, ip: c.get('ip'), correlationId: c.get('correlationId') }, now()))
    },
  )
  .get(
    '/api/tenants/:tenantId/seats',
    operation({
      summary: 'The seats: every active member holds one (oldest first, 50 a page), with the counts',
      tag: TAG,
      access: 'admin',
      params: TenantParam,
      query: SeatListQuerySchema,
      responses: { 200: { description: '`{ items: Seat[], nextCursor, seats: { total, used, reserved, free } }`.', schema: SeatPageSchema }, 400: 'A parameter is not valid.', ...tenantAdminResponses },
    }),
    async (c) => c.json(await asTenantAdmin(c, c.req.valid('param').tenantId, (ctx) => listSeats(ctx, c.req.valid('query')))),
  )
  .get(
    '/api/tenants/:tenantId/seats/invites',
    operation({
      summary: 'The pending invites, each reserving a seat (newest first, 50 a page)',
      tag: TAG,
      access: 'admin',
      params: TenantParam,
      query: SeatListQuerySchema,
      responses: { 200: { description: 'A page of pending invites (as GET /api/admin/invites?status=pending).', schema: InvitePageSchema }, 400: 'A parameter is not valid.', ...tenantAdminResponses },
    }),
    async (c) => c.json(await asTenantAdmin(c, c.req.valid('param').tenantId, (ctx) => listInvites(ctx, { ...c.req.valid('query'), status: 'pending' }))),
  )
  .post(
    '/api/tenants/:tenantId/seats/invite',
    operation({
      summary: 'Invite a person into a free seat as Read & Write or Read Only',
      tag: TAG,
      access: 'admin',
      params: TenantParam,
      body: SeatInviteSchema,
      idempotent: true,
      responses: inviteResponses,
    }),
    idempotent,
    async (c) => c.json(await asTenantAdmin(c, c.req.valid('param').tenantId, (ctx) => createInvite(ctx, c.req.valid('json'), meta(c))), 201),
  )
  .post(
    '/api/tenants/:tenantId/admins/invite',
    operation({
      summary: 'Invite an administrator (takes a seat like any member)',
      tag: TAG,
      access: 'admin',
      params: TenantParam,
      body: AdminInviteSchema,
      idempotent: true,
      responses: inviteResponses,
    }),
    idempotent,
    async (c) => c.json(await asTenantAdmin(c, c.req.valid('param').tenantId, (ctx) => createInvite(ctx, { ...c.req.valid('json'), roleKey: 'admin' }, meta(c))), 201),
  )
  .post(
    '/api/seats/:seatId/revoke',
    operation({
      summary: 'Revoke a seat: the member’s access here ends (membership suspended, sessions here end); nothing is deleted',
      tag: TAG,
      access: 'admin',
      params: SeatParam,
      idempotent: true,
      responses: {
        200: { description: 'The seat, revoked, and the seat counts now.', schema: z.object({ seatId: z.uuid(), userId: z.uuid(), status: z.literal('revoked'), seats: SeatCountsSchema }) },
        403: 'Not an administrator of this organisation.',
        404: 'No such seat in this organisation.',
        409: 'Your own seat (KR_SELF_CHANGE), the last administrator’s (KR_LAST_ADMIN), or a seat not held (KR_SEAT_NOT_HELD).',
      },
    }),
    idempotent,
    async (c) => c.json(await runAdmin(c, (ctx) => revokeSeat(ctx, c.req.valid('param').seatId, meta(c)))),
  )
