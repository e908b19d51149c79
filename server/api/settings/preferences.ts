import { Hono, type Context } from 'hono'
import type { BackendEnv } from '#server/http/env'
import { asMember, type DomainContext } from '#server/domain/tenancy/context'
import { getAppearance, patchAppearance } from '#server/domain/settings/appearance'
import { getPreferences, putPreferences } from '#server/domain/settings/notification-preferences'
import { operation } from '#server/http/contract'
import { AppearanceSettingsSchema, NotificationPreferencesSchema as PreferencesAnswer } from '~/lib/schemas/settings-responses'
import { requireSession } from '#server/http/session'
import { AppearancePatchSchema } from '~/lib/schemas/appearance'
import { NotificationPreferencesSchema } from '~/lib/schemas/notification-preferences'

/** The session's member, in one tenant transaction with the request's clock. */
function asSessionMember<T>(c: Context<BackendEnv>, work: (ctx: DomainContext) => Promise<T>): Promise<T> {
  const session = requireSession(c)
  const { db, now } = c.get('deps')
  return asMember(db, session, now(), work)
}

const meta = (c: Context<BackendEnv>) => ({ ip: c.get('ip'), correlationId: c.get('correlationId') })

/**
 * Spec §7 "Settings": the member's own appearance and notification preferences
 * (docs/settings-appearance-notifications.md). Spec §7 writes `/api/user/notification-preferences/`:
 * the backend ignores a trailing slash (server/api/app.ts), so both spellings are this call.
 */
export const preferenceRoutes = new Hono<BackendEnv>()
  .get(
    '/api/settings/appearance',
    operation({
      summary: 'Your appearance (the default of your devices without an override)',
      tag: 'Settings',
      access: 'session',
      responses: { 200: { description: 'The appearance and its contrast check.', schema: AppearanceSettingsSchema } },
    }),
    async (c) => c.json(await asSessionMember(c, (ctx) => getAppearance(ctx))),
  )

  .patch(
    '/api/settings/appearance',
    operation({
      summary: 'Change your appearance: theme, high contrast, use system theme, custom palette',
      tag: 'Settings',
      access: 'session',
      body: AppearancePatchSchema,
      responses: { 200: { description: 'The appearance saved, with its contrast check (a low contrast is a warning, not an error).', schema: AppearanceSettingsSchema }, 400: 'A value is not valid.' },
    }),
    async (c) => {
      const patch = c.req.valid('json')
      return c.json(await asSessionMember(c, (ctx) => patchAppearance(ctx, patch, meta(c))))
    },
  )

  .get(
    '/api/user/notification-preferences',
    operation({
      summary: 'Which events mail you and which the app shows you, in your current organisation',
      tag: 'Settings',
      access: 'session',
      responses: { 200: { description: 'Your preferences (the defaults until you save).', schema: PreferencesAnswer } },
    }),
    async (c) => c.json(await asSessionMember(c, (ctx) => getPreferences(ctx))),
  )

  .put(
    '/api/user/notification-preferences',
    operation({
      summary: 'Replace which events mail you and which the app shows you, in your current organisation (without inApp the in-app choices stay)',
      tag: 'Settings',
      access: 'session',
      body: NotificationPreferencesSchema,
      responses: { 200: { description: 'Your preferences.', schema: PreferencesAnswer }, 400: 'A value is not valid.' },
    }),
    async (c) => {
      const input = c.req.valid('json')
      return c.json(await asSessionMember(c, (ctx) => putPreferences(ctx, input, meta(c))))
    },
  )
