import { Hono } from 'hono'
import { z } from 'zod'
import { devicePlatforms, listAdminDevices, revokeAdminDevice } from '#server/domain/admin/devices'
import { cursorParam } from '#server/domain/tenancy/paging'
import { operation, pathPattern } from '#server/http/contract'
import { DevicePageSchema } from '~/lib/schemas/admin-responses'
import { DEVICE_ID_MAX, DEVICE_ID_PATTERN } from '~/lib/schemas/auth'
import type { BackendEnv } from '#server/http/env'
import { optional, wholeNumber } from '#server/http/query'
import { runAdmin } from './run'

/** Devices of the organisation's people (issue 13, docs/admin/join-requests-and-devices.md). */

const TAG = 'Administration'

const ListQuery = z.object({
  includeRevoked: optional(z.enum(['true', 'false'], { error: 'includeRevoked is true or false.' })),
  userId: optional(z.uuid({ error: 'userId is a user id.' })),
  platform: optional(z.string().trim().max(40, 'platform is at most 40 characters.')),
  after: optional(cursorParam),
  limit: optional(wholeNumber('limit', 200)),
})

const DeviceParams = z.object({
  userId: z.uuid({ error: 'Not a user id.' }),
  deviceId: pathPattern(DEVICE_ID_PATTERN, `The device's own id, as registered (trimmed, at most ${DEVICE_ID_MAX} characters); one that names no device of the user is 404.`, z.string().min(1).max(DEVICE_ID_MAX, 'Not a device id.')),
})

export const adminDeviceRoutes = new Hono<BackendEnv>()
  .get(
    '/api/admin/devices',
    operation({
      summary: 'Registered devices of the organisation’s people',
      tag: TAG,
      access: 'admin',
      query: ListQuery,
      responses: {
        200: { description: 'A page of devices, newest registration first (revoked ones with includeRevoked=true), and the platforms for the filter.', schema: DevicePageSchema },
        400: 'A filter is not valid: see errors.',
        403: 'Not an administrator of the organisation.',
      },
    }),
    async (c) => {
      const q = c.req.valid('query')
      return c.json(
        await runAdmin(c, async (ctx) => ({
          ...(await listAdminDevices(ctx, { includeRevoked: q.includeRevoked === 'true', userId: q.userId, platform: q.platform, after: q.after, limit: q.limit ?? 50 })),
          platforms: await devicePlatforms(ctx),
        })),
      )
    },
  )
  .delete(
    '/api/admin/devices/:userId/:deviceId',
    operation({
      summary: 'Revoke a person’s device: its sessions end and its sync stops',
      tag: TAG,
      access: 'admin',
      params: DeviceParams,
      responses: {
        204: 'Revoked (also when it was revoked already: nothing changes then).',
        403: 'Not an administrator of the organisation.',
        404: 'No such device of that person in this organisation.',
      },
    }),
    async (c) => {
      const { userId, deviceId } = c.req.valid('param')
      await runAdmin(c, (ctx) => revokeAdminDevice(ctx, userId, deviceId, { ip: c.get('ip'), correlationId: c.get('correlationId') }))
      return c.body(null, 204)
    },
  )
