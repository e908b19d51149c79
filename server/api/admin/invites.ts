import { Hono, type Context } from 'hono'
import { z } from 'zod'
import { requestContext, startSession } from '#server/api/auth/context'
import { cancelInvite, claimInvite, createInvite, inviteLanding, listInvites, registerWithInvite, resendInvite } from '#server/domain/admin/invites'
import type { RequestMeta } from '#server/domain/admin/invites-shared'
import {
  cancelProjectInvite,
  claimProjectInvite,
  claimProjectInviteCode,
  createProjectInvite,
  listProjectInvites,
  projectInviteLanding,
} from '#server/domain/admin/project-invites'
import { createSession, revokeSession, sessionView, switchSessionTenant } from '#server/domain/auth/sessions'
import type { BackendEnv } from '#server/http/env'
import { operation, pathPattern } from '#server/http/contract'
import { CreatedProjectInviteSchema, InviteClaimedSchema, InviteLandingSchema, InvitePageSchema, InviteSchema, ProjectInviteClaimedSchema, ProjectInviteLandingSchema, ProjectInviteSchema } from '~/lib/schemas/admin-responses'
import { SessionSchema } from '~/lib/schemas/auth-responses'
import { idempotent } from '#server/http/idempotency'
import { requireSession } from '#server/http/session'
import {
  InviteCodeSchema,
  InviteCreateSchema,
  InviteIdSchema,
  InviteListQuerySchema,
  InviteRegisterSchema,
  InviteTokenSchema,
  ProjectInviteCreateSchema,
  ProjectInviteListQuerySchema,
} from '~/lib/schemas/admin-invites'
import { runAdmin } from './run'

/**
 * Spec §7 "Invites and tenants" (docs/admin/invites.md): invitations to the organisation (admin:
 * create, list, resend, cancel; the link's holder: landing, claim, register) and project invites
 * with their typed codes. Mutating calls take an Idempotency-Key (spec §5).
 */

const TAG = 'Invites and tenants'

function meta(c: Context<BackendEnv>): RequestMeta {
  return { ip: c.get('ip'), correlationId: c.get('correlationId'), publicUrl: c.get('deps').config.publicUrl }
}

/** 32 random bytes in base64url (server/domain/auth/tokens.ts); looked up by its hash, so one that names no invite is 404. */
const TokenParam = z.object({ token: pathPattern(/^[A-Za-z0-9_-]{43}$/, 'The invite link’s token: 43 base64url characters as issued; one that names no invite is 404.', z.string().min(1).max(200)) })
const ProjectParam = z.object({ projectId: z.string().max(100) })
const IdParam = z.object({ inviteId: z.string().max(100) })

/** What a claim answers: what was joined, and the session now in that organisation (the link and the code claims answer the same). */
const InviteClaimResultSchema = z.object({ claimed: InviteClaimedSchema, session: SessionSchema }).meta({ id: 'InviteClaimResult' })
const ProjectInviteClaimResultSchema = z.object({ claimed: ProjectInviteClaimedSchema, session: SessionSchema }).meta({ id: 'ProjectInviteClaimResult' })

const landingResponses = {
  200: { description: 'The invitation: organisation, role, who invites, and its `status` with `statusDetail` (pending, accepted, cancelled or expired: a used or dead link still answers 200 so the page can explain it).', schema: InviteLandingSchema },
  404: 'No invitation has this token (KR_INVITE_NOT_FOUND).',
}
const projectLandingResponses = {
  200: { description: 'The project invitation: organisation, project title, role, and its `status` (active, used-up, cancelled, expired) with `statusDetail`.', schema: ProjectInviteLandingSchema },
  404: 'No project invitation has this token (KR_INVITE_NOT_FOUND).',
}

/** Signs the person into the organisation just joined: the session moves there (or a new one starts). */
async function intoOrganisation(c: Context<BackendEnv>, tenantId: string) {
  const session = requireSession(c)
  const { db } = c.get('deps')
  await switchSessionTenant(db, session, tenantId)
  return sessionView(db, session, c.get('correlationId'), c.get('deps').config.featureFlags)
}

export const inviteRoutes = new Hono<BackendEnv>()
  // ---- Administrators ----
  .post(
    '/api/admin/invites',
    operation({
      summary: 'Invite an address to the organisation with a role; the invitation link (valid 7 days) is mailed',
      tag: TAG,
      access: 'admin',
      body: InviteCreateSchema,
      idempotent: true,
      responses: {
        201: { description: 'The invite (status pending).', schema: InviteSchema },
        400: 'The fields have problems: see errors.',
        403: 'Not an administrator of this organisation.',
        409: 'The address is already a member (KR_ALREADY_MEMBER) or already has a pending invite (KR_INVITE_PENDING, with inviteId).',
      },
    }),
    idempotent,
    async (c) => c.json(await runAdmin(c, (ctx) => createInvite(ctx, c.req.valid('json'), meta(c))), 201),
  )
  .get(
    '/api/admin/invites',
    operation({
      summary: 'The organisation’s invites, newest first (status filter, 50 a page, `after` cursor)',
      tag: TAG,
      access: 'admin',
      query: InviteListQuerySchema,
      responses: { 200: { description: 'A page of invites.', schema: InvitePageSchema }, 400: 'A filter is not valid.', 403: 'Not an administrator of this organisation.' },
    }),
    async (c) => c.json(await runAdmin(c, (ctx) => listInvites(ctx, c.req.valid('query')))),
  )
  .post(
    '/api/invites/resend',
    operation({
      summary: 'Send an invite again with a new link (the old link stops working; 7 more days)',
      tag: TAG,
      access: 'admin',
      body: InviteIdSchema,
      idempotent: true,
      responses: {
        200: { description: 'The invite, sendCount raised.', schema: InviteSchema },
        403: 'Not an administrator of this organisation.',
        404: 'No such invite in this organisation.',
        409: 'Accepted or cancelled already.',
      },
    }),
    idempotent,
    async (c) => c.json(await runAdmin(c, (ctx) => resendInvite(ctx, c.req.valid('json').inviteId, meta(c)))),
  )
  .post(
    '/api/invites/cancel',
    operation({
      summary: 'Cancel an invite: its link stops working',
      tag: TAG,
      access: 'admin',
      body: InviteIdSchema,
      idempotent: true,
      responses: {
        200: { description: 'The invite (status cancelled).', schema: InviteSchema },
        403: 'Not an administrator of this organisation.',
        404: 'No such invite in this organisation.',
        409: 'Accepted already.',
      },
    }),
    idempotent,
    async (c) => c.json(await runAdmin(c, (ctx) => cancelInvite(ctx, c.req.valid('json').inviteId, meta(c)))),
  )

  // ---- The holder of an invitation link ----
  .get('/invite/:token', operation({ summary: 'The invitation behind a link (public)', tag: TAG, access: 'public', params: TokenParam, responses: landingResponses }), async (c) =>
    c.json(await inviteLanding(c.get('deps').db, c.req.valid('param').token, c.get('deps').now())),
  )
  .get(
    '/api/invite/:token',
    operation({
      summary: 'The invitation behind a link (public); the same as GET /invite/{token}, where spec §7’s client sends it',
      tag: TAG,
      access: 'public',
      params: TokenParam,
      responses: landingResponses,
    }),
    async (c) => c.json(await inviteLanding(c.get('deps').db, c.req.valid('param').token, c.get('deps').now())),
  )
  .post(
    '/api/invites/claim',
    operation({
      summary: 'Accept an invitation signed in: join the organisation with its role; the session moves into it',
      tag: TAG,
      access: 'session',
      body: InviteTokenSchema,
      idempotent: true,
      responses: {
        200: { description: 'What was joined, and the session, now in that organisation.', schema: InviteClaimResultSchema },
        403: 'Signed in with another address than the invited one (KR_INVITE_WRONG_ACCOUNT).',
        404: 'No invitation has this token.',
        409: 'Already a member (KR_ALREADY_MEMBER).',
        410: 'Used (KR_INVITE_USED), cancelled (KR_INVITE_CANCELLED) or expired (KR_INVITE_EXPIRED).',
      },
    }),
    idempotent,
    async (c) => {
      const session = requireSession(c)
      const { db, now } = c.get('deps')
      const claimed = await claimInvite(db, session, c.req.valid('json').token, meta(c), now())
      return c.json({ claimed, session: await intoOrganisation(c, claimed.organisationId) })
    },
  )
  .post(
    '/api/invites/register',
    operation({
      summary: 'Accept an invitation without an account: create it for the invited address (verified), join, sign in',
      tag: TAG,
      access: 'public',
      body: InviteRegisterSchema,
      idempotent: true,
      responses: {
        201: { description: 'Signed in (requiresMfa when the organisation enforces a second factor).', schema: InviteClaimResultSchema },
        400: 'The fields have problems: see errors.',
        404: 'No invitation has this token.',
        409: 'The address has an account already: sign in to accept (KR_ACCOUNT_EXISTS).',
        410: 'Used, cancelled or expired.',
      },
    }),
    idempotent,
    async (c) => {
      const { db, now } = c.get('deps')
      const ctx = requestContext(c)
      const at = now()
      const registered = await registerWithInvite(db, c.req.valid('json'), meta(c), at)
      const created = await createSession(
        db,
        {
          userId: registered.userId,
          tenantId: registered.organisationId,
          kind: 'user',
          requiresMfa: registered.mfaEnforced,
          mfaEnrollment: registered.mfaEnforced,
          ip: ctx.ip,
          userAgent: ctx.userAgent,
        },
        at,
      )
      // A new sign-in replaces whatever session this browser had (no session fixation).
      const previous = c.get('session')
      if (previous) await revokeSession(db, previous.id, at)
      startSession(c, created.token, created.session)
      const { userId: _userId, mfaEnforced: _mfa, ...claimed } = registered
      return c.json({ claimed, session: await sessionView(db, created.session, ctx.correlationId, c.get('deps').config.featureFlags) }, 201)
    },
  )

  // ---- Project invites ----
  .post(
    '/api/projects/:projectId/invites/create',
    operation({
      summary: 'Make a project invite: a link and a short code, both shown only in this answer (mailed when an address is given)',
      tag: TAG,
      access: 'admin',
      params: ProjectParam,
      body: ProjectInviteCreateSchema,
      idempotent: true,
      responses: {
        201: { description: 'The invite, its token, link and code (XXXX-XXXX).', schema: CreatedProjectInviteSchema },
        400: 'The fields have problems: see errors.',
        403: 'Not an administrator of this organisation.',
        404: 'No such project in this organisation.',
      },
    }),
    idempotent,
    async (c) => c.json(await runAdmin(c, (ctx) => createProjectInvite(ctx, c.req.valid('param').projectId, c.req.valid('json'), meta(c))), 201),
  )
  .get(
    '/api/projects/:projectId/invites',
    operation({
      summary: 'A project’s invites, newest first (50 a page, `after` cursor)',
      tag: TAG,
      access: 'admin',
      params: ProjectParam,
      query: ProjectInviteListQuerySchema,
      responses: { 200: { description: 'A page of the project’s invites.', schema: z.object({ items: z.array(ProjectInviteSchema), nextCursor: z.string().nullable() }) }, 403: 'Not an administrator of this organisation.', 404: 'No such project in this organisation.' },
    }),
    async (c) => c.json(await runAdmin(c, (ctx) => listProjectInvites(ctx, c.req.valid('param').projectId, c.req.valid('query')))),
  )
  .post(
    '/api/project-invites/:inviteId/cancel',
    operation({
      summary: 'Cancel a project invite: its link and code stop working',
      tag: TAG,
      access: 'admin',
      params: IdParam,
      idempotent: true,
      responses: { 200: { description: 'The project invite (status cancelled).', schema: ProjectInviteSchema }, 403: 'Not an administrator of this organisation.', 404: 'No such project invite in this organisation.' },
    }),
    idempotent,
    async (c) => c.json(await runAdmin(c, (ctx) => cancelProjectInvite(ctx, c.req.valid('param').inviteId, meta(c)))),
  )
  .get(
    '/invite/project/:token',
    operation({ summary: 'The project invitation behind a link (public)', tag: TAG, access: 'public', params: TokenParam, responses: projectLandingResponses }),
    async (c) => c.json(await projectInviteLanding(c.get('deps').db, c.req.valid('param').token, c.get('deps').now())),
  )
  .get(
    '/api/invite/project/:token',
    operation({
      summary: 'The project invitation behind a link (public); the same as GET /invite/project/{token}, where spec §7’s client sends it',
      tag: TAG,
      access: 'public',
      params: TokenParam,
      responses: projectLandingResponses,
    }),
    async (c) => c.json(await projectInviteLanding(c.get('deps').db, c.req.valid('param').token, c.get('deps').now())),
  )
  .post(
    '/api/project-invites/claim',
    operation({
      summary: 'Accept a project invitation by its link: join the organisation when not a member, and get the project',
      tag: TAG,
      access: 'session',
      body: InviteTokenSchema,
      idempotent: true,
      responses: {
        200: { description: 'What was joined; the session moves into the organisation.', schema: ProjectInviteClaimResultSchema },
        403: 'The invitation names another address, or the membership there is suspended.',
        404: 'No project invitation has this token.',
        410: 'Used up, cancelled or expired.',
      },
    }),
    idempotent,
    async (c) => {
      const session = requireSession(c)
      const { db, now } = c.get('deps')
      const claimed = await claimProjectInvite(db, session, c.req.valid('json').token, meta(c), now())
      return c.json({ claimed, session: await intoOrganisation(c, claimed.organisationId) })
    },
  )
  .post(
    '/api/project-invites/codes/claim',
    operation({
      summary: 'Accept a project invitation by its typed code (any case, dash optional); rate-limited',
      tag: TAG,
      access: 'session',
      body: InviteCodeSchema,
      idempotent: true,
      responses: {
        200: { description: 'As the link claim.', schema: ProjectInviteClaimResultSchema },
        400: 'Not an 8-character code.',
        403: 'The invitation names another address, or the membership there is suspended.',
        404: 'The code does not work (never existed, expired, cancelled or used up: one answer).',
        429: 'Too many wrong codes from this account or address (retryAfterSeconds).',
      },
    }),
    idempotent,
    async (c) => {
      const session = requireSession(c)
      const { db, now } = c.get('deps')
      const claimed = await claimProjectInviteCode(db, session, c.req.valid('json').code, meta(c), now())
      return c.json({ claimed, session: await intoOrganisation(c, claimed.organisationId) })
    },
  )
