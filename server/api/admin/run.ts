import type { Context } from 'hono'
import { asAdmin } from '#server/domain/admin/context'
import type { DomainContext } from '#server/domain/tenancy/context'
import type { BackendEnv } from '#server/http/env'
import { requireSession } from '#server/http/session'

/** Runs an admin call's work as the session's administrator (403 for any other member). */
export function runAdmin<T>(c: Context<BackendEnv>, work: (ctx: DomainContext) => Promise<T>): Promise<T> {
  const session = requireSession(c)
  const { db, now } = c.get('deps')
  return asAdmin(db, session, now(), work)
}
