import { type Context, Hono } from 'hono'
import { z } from 'zod'
import { sniffFileType, SNIFF_BYTES } from '#server/domain/documents/revision-type'
import { asMember, type DomainContext } from '#server/domain/tenancy/context'
import { checkCurrentPassword, confirmEmailChange, recordEmailChanged, recordEmailChangedUntenanted, requestEmailChange } from '#server/domain/settings/email-change'
import { cancelEnrollment, confirmEnrollment, removeMfa, startEnrollment } from '#server/domain/settings/mfa'
import { getAdminSettings, patchAdminSettings } from '#server/domain/config/organisation-switches'
import { settingsOverview } from '#server/domain/settings/overview'
import { listSessions, revokeOtherSessions, revokeSession } from '#server/domain/settings/sessions'
import { getSite, logoBlob, logoKey, onlyAdminsChangeSite, patchSite, removeLogo, setLogo } from '#server/domain/settings/site'
import { getUserSettings, mfaEnforced, patchUserSettings } from '#server/domain/settings/user'
import { operation } from '#server/http/contract'
import { AccountSessionsSchema, AdminSettingsSchema, PendingEmailChangeSchema, VerifiedEmailSchema, MfaEnrollmentSchema, RevokedSchema, SettingsOverviewSchema, SiteSettingsSchema, UserSettingsSchema } from '~/lib/schemas/settings-responses'
import type { BackendEnv } from '#server/http/env'
import { fileParts, multipartForm, multipartLimit } from '#server/http/multipart'
import { Problem } from '#server/http/problem'
import { requireSession } from '#server/http/session'
import { blobStoreFor } from '#server/storage/blob-stores'
import {
  AdminSettingsPatchSchema,
  DiagnosticsPatchSchema,
  EmailChangeSchema,
  EmailConfirmSchema,
  LicensingPatchSchema,
  MfaCodeSchema,
  ProfilePatchSchema,
  SitePatchSchema,
} from '~/lib/schemas/settings'
import { LOGO_MAX_BYTES, LOGO_TYPES } from '~/lib/settings/settings'
import { expectedRevision, STALE_WRITE } from '~/lib/schemas/edit-conflict'
import { runAdmin } from '../admin/run'
import { serveBlob } from '../photos/serve-blob'

/**
 * Settings (spec §7 "Settings", issue 14, docs/settings.md): the user, site and admin tabs, the
 * e-mail change, two-factor authentication and sessions. Appearance and notification preferences
 * are in ./preferences.ts.
 */

const TAG = 'Settings'

/** The multipart body holds one small image and the form's few fields. */
const LOGO_BODY_LIMIT = LOGO_MAX_BYTES + 16 * 1024

function meta(c: Context<BackendEnv>) {
  return { ip: c.get('ip'), correlationId: c.get('correlationId') }
}

function runMember<T>(c: Context<BackendEnv>, work: (ctx: DomainContext) => Promise<T>): Promise<T> {
  const session = requireSession(c)
  const { db, now } = c.get('deps')
  return asMember(db, session, now(), work)
}

/** The acting person for the two-factor calls: who, where, and whether it is required of them. */
async function mfaActor(c: Context<BackendEnv>) {
  const session = requireSession(c)
  const enforced = await runMember(c, (ctx) => mfaEnforced(ctx))
  return { userId: session.userId, tenantId: session.tenantId, enforced }
}

const SessionParams = z.object({ id: z.uuid({ error: 'Not a session id.' }) })

const logoTooLarge = (size: number) =>
  new Problem({
    status: 413,
    title: 'File too large',
    detail: `A logo may be at most ${LOGO_MAX_BYTES / 1024} KB (this one is ${Math.ceil(size / 1024)} KB).`,
    code: 'KR_UPLOAD_TOO_LARGE',
    remediation: 'Send a smaller image: a logo shows at most 64 pixels high.',
    errors: { logo: [`Choose an image of at most ${LOGO_MAX_BYTES / 1024} KB.`] },
  })

const logoTypeProblem = () =>
  new Problem({
    status: 415,
    title: 'Unsupported media type',
    detail: 'A logo is a PNG, JPEG, WebP or GIF image.',
    code: 'KR_UPLOAD_TYPE',
    remediation: 'Save the logo as PNG and send it again.',
    errors: { logo: ['Choose a PNG, JPEG, WebP or GIF image.'] },
  })

export const settingsRoutes = new Hono<BackendEnv>()
  .get(
    '/api/settings',
    operation({
      summary: 'Everything the settings tabs show',
      tag: TAG,
      access: 'session',
      responses: { 200: { description: 'What every tab needs: admin only for administrators (else null), appearance null when never saved.', schema: SettingsOverviewSchema } },
    }),
    async (c) => c.json(await runMember(c, settingsOverview)),
  )

  // ---- User ----
  .get(
    '/api/settings/user',
    operation({ summary: 'Your account: names, position, e-mail (and a pending change), two-factor state', tag: TAG, access: 'session', responses: { 200: { description: 'Your account.', schema: UserSettingsSchema } } }),
    async (c) => c.json(await runMember(c, getUserSettings)),
  )
  .patch(
    '/api/settings/user',
    operation({
      summary: 'Change your names and position',
      tag: TAG,
      access: 'session',
      body: ProfilePatchSchema,
      responses: { 200: { description: 'Your account after the change.', schema: UserSettingsSchema }, 400: 'A field is not valid: see errors.' },
    }),
    async (c) => {
      const patch = c.req.valid('json')
      return c.json(await runMember(c, (ctx) => patchUserSettings(ctx, patch, meta(c))))
    },
  )
  .post(
    '/api/settings/user/email',
    operation({
      summary: 'Change your e-mail address: a link goes to the new address',
      description: 'The new address becomes yours when the link (valid 24 hours) is followed: POST /api/settings/user/email/confirm.',
      tag: TAG,
      access: 'session',
      body: EmailChangeSchema,
      responses: {
        202: { description: 'The link is on its way (or queued).', schema: PendingEmailChangeSchema },
        400: 'Wrong current password, or the address is yours already.',
        409: 'The address cannot be used (errors.newEmail).',
        429: 'Too many wrong passwords.',
      },
    }),
    async (c) => {
      const session = requireSession(c)
      const input = c.req.valid('json')
      const { db, now, config } = c.get('deps')
      await checkCurrentPassword(db, session, input.currentPassword, meta(c), now())
      return c.json(await runMember(c, (ctx) => requestEmailChange(ctx, input.newEmail, { ...meta(c), publicUrl: config.publicUrl })), 202)
    },
  )
  .post(
    '/api/settings/user/email/confirm',
    operation({
      summary: 'Finish an e-mail change with the mailed token (signed in or not)',
      tag: TAG,
      access: 'public',
      body: EmailConfirmSchema,
      responses: {
        200: { description: 'The account’s address now, verified.', schema: VerifiedEmailSchema },
        400: 'The link is not valid (KR_TOKEN_INVALID), has expired (KR_TOKEN_EXPIRED) or was used (KR_TOKEN_USED).',
        409: 'Another account took the address meanwhile.',
      },
    }),
    async (c) => {
      const { token } = c.req.valid('json')
      const { db, now } = c.get('deps')
      const changed = await confirmEmailChange(db, token, meta(c), now())
      const session = c.get('session')
      if (session && !session.requiresMfa && session.userId === changed.userId) {
        await asMember(db, session, now(), (ctx) => recordEmailChanged(ctx, changed, meta(c)))
      } else {
        await recordEmailChangedUntenanted(db, changed, meta(c))
      }
      return c.json({ email: changed.email })
    },
  )
  .post(
    '/api/settings/user/mfa/enrollment',
    operation({
      summary: 'Start setting up two-factor authentication: a secret for an authenticator app',
      tag: TAG,
      access: 'session',
      responses: { 200: { description: 'The secret and its otpauth URI, unconfirmed until POST /api/settings/user/mfa/confirm.', schema: MfaEnrollmentSchema }, 409: 'Already set up.' },
    }),
    async (c) => c.json(await startEnrollment(c.get('deps').db, await mfaActor(c))),
  )
  .delete(
    '/api/settings/user/mfa/enrollment',
    operation({ summary: 'Cancel a set-up that was not confirmed', tag: TAG, access: 'session', responses: { 204: 'Cancelled (or there was none).' } }),
    async (c) => {
      await cancelEnrollment(c.get('deps').db, await mfaActor(c))
      return c.body(null, 204)
    },
  )
  .post(
    '/api/settings/user/mfa/confirm',
    operation({
      summary: 'Turn two-factor authentication on with the first code from the app',
      tag: TAG,
      access: 'session',
      body: MfaCodeSchema,
      responses: {
        204: 'On: sign-in asks for a code from now on.',
        400: 'Wrong or used code (errors.code).',
        409: 'Nothing to confirm, or already on.',
        429: 'Too many wrong codes.',
      },
    }),
    async (c) => {
      const { code } = c.req.valid('json')
      const { db, now } = c.get('deps')
      await confirmEnrollment(db, await mfaActor(c), code, meta(c), now())
      return c.body(null, 204)
    },
  )
  .delete(
    '/api/settings/user/mfa',
    operation({
      summary: 'Turn two-factor authentication off, with the current code',
      tag: TAG,
      access: 'session',
      body: MfaCodeSchema,
      responses: {
        204: 'Off.',
        400: 'Wrong or used code (errors.code).',
        409: 'Not set up, or required for you (KR_MFA_ENFORCED).',
        429: 'Too many wrong codes.',
      },
    }),
    async (c) => {
      const { code } = c.req.valid('json')
      const { db, now } = c.get('deps')
      await removeMfa(db, await mfaActor(c), code, meta(c), now())
      return c.body(null, 204)
    },
  )

  // ---- Sessions and devices ----
  .get(
    '/api/settings/sessions',
    operation({
      summary: 'Your active sessions: device, browser, IP, last seen, which is this one',
      tag: TAG,
      access: 'session',
      responses: { 200: { description: 'Your sessions, this one first.', schema: AccountSessionsSchema } },
    }),
    async (c) => {
      const session = requireSession(c)
      return c.json(await runMember(c, (ctx) => listSessions(ctx, session.id)))
    },
  )
  .post(
    '/api/settings/sessions/revoke-others',
    operation({ summary: 'Sign out every other session of yours', tag: TAG, access: 'session', responses: { 200: { description: 'How many ended.', schema: RevokedSchema } } }),
    async (c) => {
      const session = requireSession(c)
      return c.json(await runMember(c, (ctx) => revokeOtherSessions(ctx, session.id, meta(c))))
    },
  )
  .delete(
    '/api/settings/sessions/:id',
    operation({
      summary: 'Sign out one of your sessions',
      tag: TAG,
      access: 'session',
      params: SessionParams,
      responses: { 204: 'Ended (this one too, when named: that signs you out).', 404: 'No such live session of yours.' },
    }),
    async (c) => {
      const { id } = c.req.valid('param')
      await runMember(c, (ctx) => revokeSession(ctx, id, meta(c)))
      return c.body(null, 204)
    },
  )

  // ---- Site ----
  .get(
    '/api/settings/site',
    operation({ summary: 'The organisation’s site settings', tag: TAG, access: 'session', responses: { 200: { description: 'The site settings (canEdit for administrators).', schema: SiteSettingsSchema } } }),
    async (c) => c.json(await runMember(c, getSite)),
  )
  .patch(
    '/api/settings/site',
    operation({
      summary: 'Change the site settings (administrators)',
      description: 'locale and timeZone are the general configuration’s defaultLocale and defaultTimeZone.',
      tag: TAG,
      access: 'session',
      body: SitePatchSchema,
      responses: {
        200: { description: 'The site settings after the change.', schema: SiteSettingsSchema },
        400: 'A field is not valid: see errors.',
        403: 'Not an administrator.',
        409: `The slug is taken (errors.slug). ${STALE_WRITE}`,
      },
    }),
    async (c) => {
      const patch = c.req.valid('json')
      return c.json(await runMember(c, (ctx) => patchSite(ctx, patch, meta(c))))
    },
  )
  .get(
    '/api/settings/site/logo',
    operation({
      summary: 'The organisation’s logo',
      tag: TAG,
      access: 'session',
      responses: { 200: { description: 'The image (cached for good with the ?v= the site settings give).', contentType: 'image/*' }, 304: 'Not modified.', 404: 'No logo.' },
    }),
    async (c) => {
      const blob = await runMember(c, logoBlob)
      return serveBlob(c, blob, { cache: 'versioned', csp: "default-src 'none'; sandbox", disposition: 'inline', missing: 'The logo’s file was not found.' })
    },
  )
  .post(
    '/api/settings/site/logo',
    operation({
      summary: 'Upload the organisation’s logo (administrators)',
      tag: TAG,
      access: 'session',
      rawBody: {
        contentType: 'multipart/form-data',
        maxBytes: LOGO_BODY_LIMIT,
        description: `One image part named logo (or file): PNG, JPEG, WebP or GIF, at most ${LOGO_MAX_BYTES / 1024} KB`,
      },
      responses: { 201: { description: 'The site settings with the new logo.', schema: SiteSettingsSchema }, 400: 'No image.', 403: 'Not an administrator.', 413: 'Too large.', 415: 'Not an image a logo can be.' },
    }),
    multipartLimit(LOGO_BODY_LIMIT),
    async (c) => {
      const session = requireSession(c)
      const { db, now, config } = c.get('deps')
      // Refuse a member before reading their bytes.
      await asMember(db, session, now(), async (ctx) => {
        if (ctx.actor.roleKey !== 'admin') throw onlyAdminsChangeSite()
      })
      const form = await multipartForm(c, 'the logo as a file part named logo')
      const [file] = fileParts(form, ['logo', 'file'], { max: 1, noun: 'image' })
      if (!file) throw logoTypeProblem()
      if (file.size > LOGO_MAX_BYTES) throw logoTooLarge(file.size)
      const bytes = new Uint8Array(await file.arrayBuffer())
      const contentType = sniffFileType(bytes.subarray(0, SNIFF_BYTES))
      if (!(LOGO_TYPES as readonly string[]).includes(contentType)) throw logoTypeProblem()
      const store = blobStoreFor(config)
      const key = logoKey(session.tenantId, bytes)
      await store.put(key, bytes)
      let old: string | null
      try {
        old = await asMember(db, session, now(), (ctx) => setLogo(ctx, key, contentType, bytes.length, meta(c)))
      } catch (error) {
        await store.delete(key).catch(() => undefined)
        throw error
      }
      if (old) await store.delete(old).catch(() => undefined)
      return c.json(await runMember(c, getSite), 201)
    },
  )
  .delete(
    '/api/settings/site/logo',
    operation({ summary: 'Remove the organisation’s logo (administrators)', tag: TAG, access: 'session', responses: { 204: 'No logo now.', 403: 'Not an administrator.' } }),
    async (c) => {
      const old = await runMember(c, (ctx) => removeLogo(ctx, meta(c)))
      if (old)
        await blobStoreFor(c.get('deps').config)
          .delete(old)
          .catch(() => undefined)
      return c.body(null, 204)
    },
  )

  // ---- Admin ----
  .get(
    '/api/settings/admin',
    operation({
      summary: 'Organisation-wide defaults: the licensing and diagnostics switches',
      tag: TAG,
      access: 'admin',
      responses: { 200: { description: 'The organisation-wide switches, defaults filled in.', schema: AdminSettingsSchema }, 403: 'Not an administrator.' },
    }),
    async (c) => c.json(await runAdmin(c, getAdminSettings)),
  )
  .patch(
    '/api/settings/admin',
    operation({
      summary: 'Change organisation-wide defaults',
      tag: TAG,
      access: 'admin',
      body: AdminSettingsPatchSchema.extend({ expectedRevision }),
      responses: { 200: { description: 'The switches after the change.', schema: AdminSettingsSchema }, 400: 'An unknown switch or a value that is not true/false.', 403: 'Not an administrator.', 409: STALE_WRITE },
    }),
    async (c) => {
      const { expectedRevision, ...patch } = c.req.valid('json')
      return c.json(await runAdmin(c, (ctx) => patchAdminSettings(ctx, patch, meta(c), expectedRevision)))
    },
  )
  .patch(
    '/api/settings/licensing',
    operation({
      summary: 'Change the licensing switches',
      tag: TAG,
      access: 'admin',
      body: LicensingPatchSchema.extend({ expectedRevision }),
      responses: { 200: { description: 'The switches after the change.', schema: AdminSettingsSchema }, 400: 'An unknown switch or a value that is not true/false.', 403: 'Not an administrator.', 409: STALE_WRITE },
    }),
    async (c) => {
      const { expectedRevision, ...licensing } = c.req.valid('json')
      return c.json(await runAdmin(c, (ctx) => patchAdminSettings(ctx, { licensing }, meta(c), expectedRevision)))
    },
  )
  .patch(
    '/api/settings/diagnostics',
    operation({
      summary: 'Change the diagnostics switches',
      tag: TAG,
      access: 'admin',
      body: DiagnosticsPatchSchema.extend({ expectedRevision }),
      responses: { 200: { description: 'The switches after the change.', schema: AdminSettingsSchema }, 400: 'An unknown switch or a value that is not true/false.', 403: 'Not an administrator.', 409: STALE_WRITE },
    }),
    async (c) => {
      const { expectedRevision, ...diagnostics } = c.req.valid('json')
      return c.json(await runAdmin(c, (ctx) => patchAdminSettings(ctx, { diagnostics }, meta(c), expectedRevision)))
    },
  )
