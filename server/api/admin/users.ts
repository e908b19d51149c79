import { Hono, type Context } from 'hono'
import { STALE_WRITE } from '~/lib/schemas/edit-conflict'
import {
  addMember,
  deactivateUser,
  getUser,
  hardDeleteUser,
  listOrganisations,
  listRoles,
  listUsers,
  type RequestMeta,
  sendPasswordReset,
  setPassword,
  updateUser,
} from '#server/domain/admin/users'
import type { BackendEnv } from '#server/http/env'
import { operation } from '#server/http/contract'
import { AdminOrganisationListSchema, AdminRoleListSchema, AdminUserPageSchema, AdminUserSchema, HardDeleteResultSchema } from '~/lib/schemas/admin-responses'
import { idempotent } from '#server/http/idempotency'
import { requireSession } from '#server/http/session'
import { AddMemberSchema, SetPasswordSchema, UserPatchSchema, UsersQuerySchema } from '~/lib/schemas/admin-users'
import { runAdmin } from './run'

/** Administration › Users, roles, organisations, members (docs/admin/users.md; spec §7 "Admin users and devices"). */

const TAG = 'Administration'

function meta(c: Context<BackendEnv>): RequestMeta {
  return { ip: c.get('ip'), correlationId: c.get('correlationId') }
}

const adminOnly = { 401: 'Not signed in.', 403: 'Not an administrator of this organisation (KR_FORBIDDEN).' }
const oneUser = { ...adminOnly, 404: 'No such member of this organisation.' }

export const adminUserRoutes = new Hono<BackendEnv>()
  .get(
    '/api/admin/users',
    operation({
      summary: "The organisation's members (Admin user), by name, 50 a page",
      description:
        'Filters: organisationId (this organisation only; another answers 404), roleKey, status (Active, Suspended, Invited: the membership of this organisation), q (name or e-mail contains, case-insensitive). Keyset paging with `after`.',
      tag: TAG,
      access: 'admin',
      query: UsersQuerySchema,
      responses: {
        200: { description: "A page of people (in the list, memberships holds this organisation's only).", schema: AdminUserPageSchema },
        400: 'A filter or the cursor is not valid.',
        ...adminOnly,
        404: 'organisationId names another organisation.',
      },
    }),
    async (c) => {
      const query = c.req.valid('query')
      return c.json(await runAdmin(c, (ctx) => listUsers(ctx, query)))
    },
  )
  .get(
    '/api/admin/users/:id',
    operation({
      summary: 'One member (Admin user), with their memberships',
      description: "Memberships: this organisation's, and the person's others only where the caller is an administrator too.",
      tag: TAG,
      access: 'admin',
      responses: { 200: { description: 'The person.', schema: AdminUserSchema }, ...oneUser },
    }),
    async (c) => c.json(await runAdmin(c, (ctx) => getUser(ctx, c.req.param('id')))),
  )
  .patch(
    '/api/admin/users/:id',
    operation({
      summary: "Change a member: names, position, MFA enforcement (the person's), role and status (this organisation's membership)",
      tag: TAG,
      access: 'admin',
      body: UserPatchSchema,
      responses: {
        200: { description: 'The person.', schema: AdminUserSchema },
        400: 'See errors.',
        ...oneUser,
        409: `The last active administrator cannot be demoted or suspended (KR_LAST_ADMIN); you cannot suspend yourself (KR_SELF_CHANGE). ${STALE_WRITE}`,
      },
    }),
    async (c) => {
      const patch = c.req.valid('json')
      return c.json(await runAdmin(c, (ctx) => updateUser(ctx, c.req.param('id'), patch, meta(c))))
    },
  )
  .delete(
    '/api/admin/users/:id',
    operation({
      summary: 'Deactivate a member: their membership is suspended and their sessions in this organisation end',
      tag: TAG,
      access: 'admin',
      responses: { 200: { description: 'The person, suspended.', schema: AdminUserSchema }, ...oneUser, 409: 'The last active administrator (KR_LAST_ADMIN), or yourself (KR_SELF_CHANGE).' },
    }),
    async (c) => c.json(await runAdmin(c, (ctx) => deactivateUser(ctx, c.req.param('id'), meta(c)))),
  )
  .delete(
    '/api/admin/users/:id/hard',
    operation({
      summary: 'Remove a member from the organisation; a person of no other organisation is anonymised (their records keep pointing at the anonymised account)',
      tag: TAG,
      access: 'admin',
      responses: {
        200: { description: 'What the delete did: anonymised, or removed from this organisation only.', schema: HardDeleteResultSchema },
        ...oneUser,
        409: 'The last active administrator (KR_LAST_ADMIN), or yourself (KR_SELF_CHANGE).',
      },
    }),
    async (c) => c.json(await runAdmin(c, (ctx) => hardDeleteUser(ctx, c.req.param('id'), meta(c)))),
  )
  .post(
    '/api/admin/users/:id/password',
    operation({
      summary: 'Mail the member a link to choose a new password (the password-reset link, valid 1 hour)',
      tag: TAG,
      access: 'admin',
      idempotent: true,
      responses: { 202: { description: 'The person; the mail is queued.', schema: AdminUserSchema }, ...oneUser, 409: 'The account is blocked or deleted (KR_ACCOUNT_INACTIVE).' },
    }),
    idempotent,
    async (c) => {
      const { publicUrl } = c.get('deps').config
      return c.json(await runAdmin(c, (ctx) => sendPasswordReset(ctx, c.req.param('id'), meta(c), publicUrl)), 202)
    },
  )
  .post(
    '/api/admin/users/:id/password/set',
    operation({
      summary: "Set the member's password; their other sessions end",
      tag: TAG,
      access: 'admin',
      body: SetPasswordSchema,
      responses: { 200: { description: 'The person.', schema: AdminUserSchema }, 400: 'The password breaks the rules: see errors.', ...oneUser, 409: 'The account is blocked or deleted (KR_ACCOUNT_INACTIVE).' },
    }),
    async (c) => {
      const session = requireSession(c)
      const { password } = c.req.valid('json')
      return c.json(await runAdmin(c, (ctx) => setPassword(ctx, c.req.param('id'), password, { ...meta(c), sessionId: session.id })))
    },
  )
  .get(
    '/api/admin/roles',
    operation({
      summary: 'The role keys and how they are shown (spec §3 "Role keys")',
      tag: TAG,
      access: 'admin',
      responses: { 200: { description: 'The roles: admin Administrator, read-write Read & Write, read-only Read Only.', schema: AdminRoleListSchema }, ...adminOnly },
    }),
    async (c) => c.json({ items: await runAdmin(c, () => Promise.resolve(listRoles())) }),
  )
  .get(
    '/api/admin/organisations',
    operation({
      summary: 'The organisations the caller administers',
      tag: TAG,
      access: 'admin',
      responses: { 200: { description: 'The organisations the caller administers (memberCount: active members).', schema: AdminOrganisationListSchema }, ...adminOnly },
    }),
    async (c) => c.json({ items: await runAdmin(c, (ctx) => listOrganisations(ctx)) }),
  )
  .post(
    '/api/admin/organisations/:id/members',
    operation({
      summary: 'Add a person who has an account, by e-mail, with a role',
      tag: TAG,
      access: 'admin',
      body: AddMemberSchema,
      idempotent: true,
      responses: {
        201: { description: 'The person.', schema: AdminUserSchema },
        400: 'See errors.',
        ...adminOnly,
        404: 'Not this organisation, or no account uses the e-mail (errors.email: invite them instead).',
        409: 'Already a member (KR_ALREADY_MEMBER).',
      },
    }),
    idempotent,
    async (c) => {
      const input = c.req.valid('json')
      return c.json(await runAdmin(c, (ctx) => addMember(ctx, c.req.param('id'), input, meta(c))), 201)
    },
  )
