import { Hono, type Context } from 'hono'
import { z } from 'zod'
import { ROLE_KEYS } from '#server/domain/tenancy/roles'
import {
  approveJoinRequest,
  createJoinRequest,
  declineJoinRequest,
  JOIN_REQUEST_STATUSES,
  listJoinRequests,
  listOwnJoinRequests,
  withdrawJoinRequest,
  type RequestMeta,
} from '#server/domain/admin/join-requests'
import { cursorParam } from '#server/domain/tenancy/paging'
import { operation } from '#server/http/contract'
import { JoinRequestPageSchema, JoinRequestSchema, OwnJoinRequestSchema } from '~/lib/schemas/admin-responses'
import type { BackendEnv } from '#server/http/env'
import { idempotent } from '#server/http/idempotency'
import { optional, wholeNumber } from '#server/http/query'
import { requireSession } from '#server/http/session'
import { runAdmin } from './run'

/** Join requests (issue 13, docs/admin/join-requests-and-devices.md): the requester's calls and the administrators'. */

const TAG = 'Invites and tenants'
const ADMIN_TAG = 'Administration'

function meta(c: Context<BackendEnv>): RequestMeta {
  return { ip: c.get('ip'), correlationId: c.get('correlationId'), publicUrl: c.get('deps').config.publicUrl }
}

export const JoinRequestBody = z.object({
  slug: z
    .string({ error: 'Enter the organisation’s address.' })
    .trim()
    .min(1, 'Enter the organisation’s address.')
    .max(100, 'An organisation’s address is at most 100 characters.')
    .regex(/^[A-Za-z0-9][A-Za-z0-9-]*$/, 'An organisation’s address has letters, digits and hyphens only.'),
  message: z.string().trim().max(1000, 'The message is at most 1000 characters.').optional(),
})

const IdParams = z.object({ id: z.uuid({ error: 'Not a join request id.' }) })

const ListQuery = z.object({
  status: optional(z.enum([...JOIN_REQUEST_STATUSES, 'all'], { error: 'status is pending, approved, declined, withdrawn or all.' })),
  after: optional(cursorParam),
  limit: optional(wholeNumber('limit', 200)),
})

export const ApproveBody = z.object({
  roleKey: z.enum(ROLE_KEYS, { error: 'Choose a role: admin, read-write or read-only.' }),
})

export const DeclineBody = z.object({
  reason: z.string({ error: 'Give a reason.' }).trim().min(1, 'Give a reason.').max(500, 'The reason is at most 500 characters.'),
})

export const joinRequestRoutes = new Hono<BackendEnv>()
  .post(
    '/api/join-requests',
    operation({
      summary: 'Ask to join an organisation by its address (slug)',
      description: 'Any signed-in person. The organisation’s active administrators are told by mail. Limited to 10 an hour per account.',
      tag: TAG,
      access: 'session',
      body: JoinRequestBody,
      idempotent: true,
      responses: {
        201: { description: 'The request, pending.', schema: OwnJoinRequestSchema },
        400: 'The fields have problems: see errors.',
        404: 'No organisation with this address (a field error on slug).',
        409: 'KR_ALREADY_MEMBER, or KR_JOIN_REQUEST_PENDING (one is waiting already).',
        429: 'Too many requests from this account: try again later.',
      },
    }),
    idempotent,
    async (c) => {
      const session = requireSession(c)
      const { db, now } = c.get('deps')
      return c.json(await createJoinRequest(db, { userId: session.userId }, c.req.valid('json'), meta(c), now()), 201)
    },
  )
  .get(
    '/api/join-requests/mine',
    operation({
      summary: 'Your join requests, in every organisation',
      tag: TAG,
      access: 'session',
      responses: { 200: { description: 'Your requests, newest first.', schema: z.object({ items: z.array(OwnJoinRequestSchema) }) } },
    }),
    async (c) => {
      const session = requireSession(c)
      return c.json({ items: await listOwnJoinRequests(c.get('deps').db, session.userId) })
    },
  )
  .post(
    '/api/join-requests/:id/withdraw',
    operation({
      summary: 'Withdraw one of your pending join requests',
      tag: TAG,
      access: 'session',
      params: IdParams,
      idempotent: true,
      responses: { 200: { description: 'The request, withdrawn.', schema: OwnJoinRequestSchema }, 404: 'No such request of yours.', 409: 'It was decided already (KR_JOIN_REQUEST_DECIDED).' },
    }),
    idempotent,
    async (c) => {
      const session = requireSession(c)
      const { db, now } = c.get('deps')
      return c.json(await withdrawJoinRequest(db, session.userId, c.req.valid('param').id, meta(c), now()))
    },
  )
  .get(
    '/api/admin/join-requests',
    operation({
      summary: 'Join requests of the organisation (pending by default)',
      tag: ADMIN_TAG,
      access: 'admin',
      query: ListQuery,
      responses: {
        200: { description: 'A page of requests, newest first.', schema: JoinRequestPageSchema },
        400: 'A filter is not valid: see errors.',
        403: 'Not an administrator of the organisation.',
      },
    }),
    async (c) => {
      const q = c.req.valid('query')
      return c.json(await runAdmin(c, (ctx) => listJoinRequests(ctx, { status: q.status ?? 'pending', after: q.after, limit: q.limit ?? 50 })))
    },
  )
  .post(
    '/api/admin/join-requests/:id/approve',
    operation({
      summary: 'Approve a join request with a role: the person becomes a member',
      tag: ADMIN_TAG,
      access: 'admin',
      params: IdParams,
      body: ApproveBody,
      idempotent: true,
      responses: {
        200: { description: 'The request, approved.', schema: JoinRequestSchema },
        400: 'The role is missing or unknown.',
        403: 'Not an administrator of the organisation.',
        404: 'No such request in this organisation.',
        409: 'Decided already (KR_JOIN_REQUEST_DECIDED, with requestStatus).',
      },
    }),
    idempotent,
    async (c) => c.json(await runAdmin(c, (ctx) => approveJoinRequest(ctx, c.req.valid('param').id, c.req.valid('json'), meta(c)))),
  )
  .post(
    '/api/admin/join-requests/:id/decline',
    operation({
      summary: 'Decline a join request with a reason the requester reads',
      tag: ADMIN_TAG,
      access: 'admin',
      params: IdParams,
      body: DeclineBody,
      idempotent: true,
      responses: {
        200: { description: 'The request, declined.', schema: JoinRequestSchema },
        400: 'The reason is missing or too long.',
        403: 'Not an administrator of the organisation.',
        404: 'No such request in this organisation.',
        409: 'Decided already (KR_JOIN_REQUEST_DECIDED, with requestStatus).',
      },
    }),
    idempotent,
    async (c) => c.json(await runAdmin(c, (ctx) => declineJoinRequest(ctx, c.req.valid('param').id, c.req.valid('json'), meta(c)))),
  )
