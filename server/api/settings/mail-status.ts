import { Hono } from 'hono'
import { z } from 'zod'
import { operation } from '#server/http/contract'
import type { BackendEnv } from '#server/http/env'
import { requireSession } from '#server/http/session'
import { mailIsSetUp } from '#server/mail/set-up'

export const MailStatusSchema = z.object({ setUp: z.boolean() })

/**
 * docs/admin/mail.md: whether mail goes out for the caller's organisation, so a confirmation says
 * "queued" rather than "sent" when it will not (any member may ask; nothing about the server is told).
 */
export const mailStatusRoutes = new Hono<BackendEnv>().get(
  '/api/mail/status',
  operation({
    summary: 'Whether mail to this organisation goes out, or stays queued because no mail server is set up',
    tag: 'Settings',
    access: 'session',
    responses: { 200: { description: '`setUp` false: mail stays queued in the outbox.', schema: MailStatusSchema } },
  }),
  async (c) => {
    const session = requireSession(c)
    const { db, config } = c.get('deps')
    c.header('cache-control', 'no-store')
    return c.json({ setUp: await mailIsSetUp(db, config, session.tenantId) })
  },
)
