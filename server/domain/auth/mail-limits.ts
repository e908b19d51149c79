import type { Database } from '#server/db/client'
import { Problem } from '#server/http/problem'
import { limitersFor, limitKey } from './limits'

/** Every call that sends mail names its kind; each kind has its own budget per address. */
export type MailPurpose = 'register' | 'reset-password' | 'verify-resend' | 'invite'

/**
 * Counts a mail-sending call per address (LIMITS.mailAddress) and per client, all kinds together
 * (LIMITS.mailClient); refuses with 429 past either. Counted before anything looks the address
 * up, so a refusal tells nothing about whether the address has an account.
 */
export async function limitMail(db: Database, purpose: MailPurpose, caller: { email: string; ip: string }, now: Date): Promise<void> {
  const l = limitersFor(db)
  const clock = { now }
  const client = await l.mailClient.hit(limitKey(caller.ip), clock)
  const address = await l.mailAddress.hit(limitKey(purpose, caller.email), clock)
  const wait = Math.max(client.wait, address.wait)
  if (wait === 0) return
  const minutes = Math.ceil(wait / 60)
  throw new Problem({
    status: 429,
    title: 'Too many requests',
    detail: `Too many e-mails were asked for. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
    code: 'KR_THROTTLED',
    remediation: 'Check your inbox and spam folder for the e-mails already sent.',
    retryAfterSeconds: wait,
  })
}
