import { Hono } from 'hono'
import type { BackendEnv } from '#server/http/env'
import { listDevices, registerDevice, revokeDevice } from '#server/domain/auth/devices'
import { z } from 'zod'
import { OwnDeviceListSchema, OwnDeviceSchema } from '~/lib/schemas/auth-responses'
import { operation, pathPattern } from '#server/http/contract'
import { requireSession } from '#server/http/session'
import { DEVICE_ID_MAX, DEVICE_ID_PATTERN, DeviceRegisterSchema } from '~/lib/schemas/auth'
import { requestContext } from './context'

/** Spec §7 "Auth": the signed-in user's devices. */
const DeviceListQuery = z.object({ includeRevoked: z.string().max(10).optional() })

export const deviceRoutes = new Hono<BackendEnv>()
  .get(
    '/auth/devices',
    operation({
      summary: 'Your registered devices',
      tag: 'Auth',
      access: 'session',
      query: DeviceListQuery,
      responses: { 200: { description: 'The devices; revoked ones with includeRevoked=true.', schema: OwnDeviceListSchema } },
    }),
    async (c) => {
      const session = requireSession(c)
      const includeRevoked = ['true', '1'].includes(c.req.valid('query').includeRevoked ?? '')
      const items = await listDevices(c.get('deps').db, session, includeRevoked)
      return c.json({ items })
    },
  )

  .post(
    '/auth/devices/register',
    operation({
      summary: 'Register this device (push token, platform); ties this session to it',
      tag: 'Auth',
      access: 'session',
      body: DeviceRegisterSchema,
      responses: { 201: { description: 'The device. This session now belongs to it: revoking the device ends the session.', schema: OwnDeviceSchema } },
    }),
    async (c) => {
      const session = requireSession(c)
      const input = c.req.valid('json')
      const { db, now } = c.get('deps')
      return c.json(await registerDevice(db, session, input, requestContext(c), now()), 201)
    },
  )

  .delete(
    '/auth/devices/:deviceId',
    operation({
      summary: 'Revoke one of your devices (its other sessions end)',
      tag: 'Auth',
      access: 'session',
      params: z.object({ deviceId: pathPattern(DEVICE_ID_PATTERN, `The device's own id, as registered (trimmed, at most ${DEVICE_ID_MAX} characters); one that names no device of yours is 404.`) }),
      responses: { 204: 'Revoked; the other sessions signed in from it end, this one is kept.', 404: 'No such device of yours.' },
    }),
    async (c) => {
      const session = requireSession(c)
      const { db, now } = c.get('deps')
      await revokeDevice(db, session, c.req.valid('param').deviceId, requestContext(c), now())
      return c.body(null, 204)
    },
  )
