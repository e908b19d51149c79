import type { MailConfig } from '#server/domain/config/effective'
import type { ConfigTestResult } from '~/lib/admin/config'

/**
 * SMTP delivery with nodemailer (issue 14, docs/admin/mail.md).
 *
 * STUB: the mail delivery work implements it; the signature is the contract the configuration's
 * `smtp` test calls: send one real message to `toEmail` with these settings and say, in words an
 * admin acts on, what failed (wrong password, refused sender, unreachable host, timeout, TLS).
 */
export async function testSmtpDelivery(_config: MailConfig, _toEmail: string, _now: () => Date): Promise<Omit<ConfigTestResult, 'testedBy'>> {
  throw new Error('not built yet')
}
