import { Hono } from 'hono'
import type { BackendEnv } from '#server/http/env'
import { changePassword, confirmPasswordReset, registerSelf, requestPasswordReset, verifyEmail } from '#server/domain/auth/account'
import { limitMail } from '#server/domain/auth/mail-limits'
import { parseJson } from '#server/http/body'
import { idempotent } from '#server/http/idempotency'
import { requireSession } from '#server/http/session'
import { PasswordSetSchema, RegisterSchema, ResetConfirmSchema, ResetRequestSchema, TokenSchema } from '~/lib/schemas/auth'
import { afterResponse } from './after-response'
import { requestContext } from './context'

/** Spec §7 "Auth": registration, e-mail verification and passwords. */
export const accountRoutes = new Hono<BackendEnv>()
  .post('/auth/register-self', idempotent, async (c) => {
    const input = await parseJson(c, RegisterSchema)
    const { db, now } = c.get('deps')
    const ctx = requestContext(c)
    const at = now()
    await limitMail(db, 'register', { email: input.email, ip: ctx.ip }, at)
    // The same answer, in the same time, whether or not the address already had an account:
    // everything that depends on it happens after the response.
    afterResponse(c, () => registerSelf(db, input, ctx, at))
    return c.json({ status: 'verification-sent', email: input.email }, 202)
  })

  .post('/auth/email/verify', async (c) => {
    const { token } = await parseJson(c, TokenSchema)
    const { db, now } = c.get('deps')
    await verifyEmail(db, token, requestContext(c), now())
    return c.json({ status: 'verified' })
  })

  .post('/auth/password/reset/request', async (c) => {
    const { email } = await parseJson(c, ResetRequestSchema)
    const { db, now } = c.get('deps')
    const ctx = requestContext(c)
    const at = now()
    await limitMail(db, 'reset-password', { email, ip: ctx.ip }, at)
    afterResponse(c, () => requestPasswordReset(db, email, ctx, at))
    return c.json({ status: 'reset-sent' }, 202)
  })

  .post('/auth/password/reset/confirm', async (c) => {
    const { token, password } = await parseJson(c, ResetConfirmSchema)
    const { db, now } = c.get('deps')
    await confirmPasswordReset(db, token, password, requestContext(c), now())
    return c.json({ status: 'password-reset' })
  })

  .post('/auth/password/set', async (c) => {
    const session = requireSession(c)
    const input = await parseJson(c, PasswordSetSchema)
    const { db, now } = c.get('deps')
    await changePassword(db, session, input, requestContext(c), now())
    return c.body(null, 204)
  })
