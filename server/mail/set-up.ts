import type { Database } from '#server/db/client'
import type { Config } from '#server/config'
import { effectiveMailConfig } from '#server/domain/config/effective'
import { instanceMailRoute } from './routing'

/**
 * Whether mail to this organisation's people goes out (docs/admin/mail.md "Transports"): its own
 * SMTP server is saved, or the server has one (or writes files, in development). When not, mail
 * stays queued in the outbox, and the screens say so instead of "sent".
 */
export async function mailIsSetUp(db: Database, config: Pick<Config, 'sessionSecret' | 'smtpUrl' | 'mailFrom' | 'mailFileDir'>, tenantId: string): Promise<boolean> {
  if (instanceMailRoute({ smtpUrl: config.smtpUrl, mailFrom: config.mailFrom, mailFileDir: config.mailFileDir })) return true
  const own = await effectiveMailConfig(db, config.sessionSecret, tenantId)
  return own?.configured === true
}
