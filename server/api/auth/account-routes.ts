import { Hono } from 'hono'
import type { BackendEnv } from '#server/http/env'
import { changePassword, confirmPasswordReset, registerSelf, requestPasswordReset, verifyEmail } from '#server/domain/auth/account'
import { limitMail } from '#server/domain/auth/mail-limits'
import { z } from 'zod'
import { AuthStatusSchema } from '~/lib/schemas/auth-responses'
import { operation } from '#server/http/contract'
import { idempotent } from '#server/http/idempotency'
import { requireSession } from '#server/http/session'
import { PasswordSetSchema, RegisterSchema, ResetConfirmSchema, ResetRequestSchema, TokenSchema } from '~/lib/schemas/auth'
import { afterResponse } from './after-response'
import { requestContext } from './context'

/** Spec §7 "Auth": registration, e-mail verification and passwords. */
export const accountRoutes = new Hono<BackendEnv>()
  .post(
    '/auth/register-self',
    operation({
      summary: 'Register: a new organisation with you as its administrator; a verification link is mailed',
      tag: 'Auth',
      access: 'public',
      body: RegisterSchema,
      idempotent: true,
      responses: { 202: { description: 'The same answer whether or not the address had an account.', schema: AuthStatusSchema('verification-sent', { email: z.string() }) }, 429: 'Too many mails to this address or from this client.' },
    }),
    idempotent,
    async (c) => {
      const input = c.req.valid('json')
      const { db, now } = c.get('deps')
      const ctx = requestContext(c)
      const at = now()
      await limitMail(db, 'register', { email: input.email, ip: ctx.ip }, at)
      // The same answer, in the same time, whether or not the address already had an account:
      // everything that depends on it happens after the response.
      afterResponse(c, () => registerSelf(db, input, ctx, at))
      return c.json({ status: 'verification-sent', email: input.email }, 202)
    },
  )

  .post(
    '/auth/email/verify',
    operation({
      summary: 'Verify an e-mail address with the mailed token',
      tag: 'Auth',
      access: 'public',
      body: TokenSchema,
      responses: { 200: { description: 'Verified.', schema: AuthStatusSchema('verified') }, 400: 'The link is not valid or has expired.' },
    }),
    async (c) => {
      const { token } = c.req.valid('json')
      const { db, now } = c.get('deps')
      await verifyEmail(db, token, requestContext(c), now())
      return c.json({ status: 'verified' })
    },
  )

  .post(
    '/auth/password/reset/request',
    operation({
      summary: 'Ask for a password reset link by e-mail',
      tag: 'Auth',
      access: 'public',
      body: ResetRequestSchema,
      responses: { 202: { description: 'The same answer whether or not the address has an account.', schema: AuthStatusSchema('reset-sent') }, 429: 'Too many mails to this address or from this client.' },
    }),
    async (c) => {
      const { email } = c.req.valid('json')
      const { db, now } = c.get('deps')
      const ctx = requestContext(c)
      const at = now()
      await limitMail(db, 'reset-password', { email, ip: ctx.ip }, at)
      afterResponse(c, () => requestPasswordReset(db, email, ctx, at))
      return c.json({ status: 'reset-sent' }, 202)
    },
  )

  .post(
    '/auth/password/reset/confirm',
    operation({
      summary: 'Set a new password with the mailed reset token',
      tag: 'Auth',
      access: 'public',
      body: ResetConfirmSchema,
      responses: { 200: { description: 'The password is changed; other sessions are signed out.', schema: AuthStatusSchema('password-reset') }, 400: 'The link is not valid or has expired.' },
    }),
    async (c) => {
      const { token, password } = c.req.valid('json')
      const { db, now } = c.get('deps')
      await confirmPasswordReset(db, token, password, requestContext(c), now())
      return c.json({ status: 'password-reset' })
    },
  )

  .post(
    '/auth/password/set',
    operation({
      summary: 'Change your password',
      tag: 'Auth',
      access: 'session',
      body: PasswordSetSchema,
      responses: { 204: 'Changed.', 400: 'The current password is wrong or the new one too weak.', 429: 'Too many wrong guesses.' },
    }),
    async (c) => {
      const session = requireSession(c)
      const input = c.req.valid('json')
      const { db, now } = c.get('deps')
      await changePassword(db, session, input, requestContext(c), now())
      return c.body(null, 204)
    },
  )
