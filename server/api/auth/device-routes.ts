import { Hono } from 'hono'
import type { BackendEnv } from '#server/http/env'
import { listDevices, registerDevice, revokeDevice } from '#server/domain/auth/devices'
import { parseJson } from '#server/http/body'
import { requireSession } from '#server/http/session'
import { DeviceRegisterSchema } from '~/lib/schemas/auth'
import { requestContext } from './context'

/** Spec §7 "Auth": the signed-in user's devices. */
export const deviceRoutes = new Hono<BackendEnv>()
  .get('/auth/devices', async (c) => {
    const session = requireSession(c)
    const includeRevoked = ['true', '1'].includes(c.req.query('includeRevoked') ?? '')
    const items = await listDevices(c.get('deps').db, session, includeRevoked)
    return c.json({ items })
  })

  .post('/auth/devices/register', async (c) => {
    const session = requireSession(c)
    const input = await parseJson(c, DeviceRegisterSchema)
    const { db, now } = c.get('deps')
    return c.json(await registerDevice(db, session, input, requestContext(c), now()), 201)
  })

  .delete('/auth/devices/:deviceId', async (c) => {
    const session = requireSession(c)
    const { db, now } = c.get('deps')
    await revokeDevice(db, session, c.req.param('deviceId'), requestContext(c), now())
    return c.body(null, 204)
  })
