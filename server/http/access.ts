import type { Context } from 'hono'
import { asAdmin } from '#server/domain/admin/context'
import { isPlatformOperator, onlyOperators } from '#server/domain/licensing/operator'
import type { BackendEnv } from './env'
import { requireSession } from './session'

/**
 * Authorization before validation (issue 36): an operation declared `access: 'admin'` refuses a
 * caller who is not an administrator of the session's organisation (401 without a session, 403
 * otherwise) before its path, query or body are looked at, so a malformed body cannot tell a plain
 * member what the call expects. The handler still runs its own check (runAdmin and friends) inside
 * its transaction; this one only moves the refusal in front of the field errors.
 */
export async function refuseNonAdmin(c: Context<BackendEnv>, options: { alsoPlatformOperator?: boolean | undefined }): Promise<void> {
  const session = requireSession(c)
  const { db, config, now } = c.get('deps')
  if (options.alsoPlatformOperator && (await isPlatformOperator(db, config.platformOperatorEmails, session.userId))) return
  await asAdmin(db, session, now(), () => Promise.resolve())
}

/** The same for an operation only a platform operator may call (`access: 'operator'`): 403 KR_OPERATOR_ONLY to anyone else, administrators included. */
export async function refuseNonOperator(c: Context<BackendEnv>): Promise<void> {
  const session = requireSession(c)
  const { db, config } = c.get('deps')
  if (!(await isPlatformOperator(db, config.platformOperatorEmails, session.userId))) throw onlyOperators()
}
