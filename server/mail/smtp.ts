import { randomUUID } from 'node:crypto'
import type { MailConfig } from '#server/domain/config/effective'
import type { ConfigTestResult } from '~/lib/admin/config'
import { describeMailError } from './errors'
import { createSmtpTransporter, smtpSettingsFromConfig, type SmtpTimeouts } from './transports'

/**
 * The configuration's `smtp` test (docs/admin/mail.md "Testing the settings"): connect with these
 * settings, sign in, and send one real message to `toEmail`; say in words an admin acts on what
 * failed (wrong password, refused sender or recipient, unreachable host, timeout, TLS).
 */

/** Shorter than the worker's: an admin is waiting for the answer. */
export const TEST_SMTP_TIMEOUTS: SmtpTimeouts = { connectionMs: 15_000, greetingMs: 15_000, socketMs: 30_000 }

export async function testSmtpDelivery(
  config: MailConfig,
  toEmail: string,
  now: () => Date,
  options: { timeouts?: SmtpTimeouts } = {},
): Promise<Omit<ConfigTestResult, 'testedBy'>> {
  const timeouts = options.timeouts ?? TEST_SMTP_TIMEOUTS
  const settings = smtpSettingsFromConfig(config)
  const started = performance.now()
  const testedAtUtc = now().toISOString()
  const transporter = createSmtpTransporter(settings, timeouts)
  const result = (ok: boolean, message: string, detail: string | undefined) => ({
    kind: 'smtp' as const,
    ok,
    message,
    detail,
    testedAtUtc,
    durationMs: Math.round(performance.now() - started),
  })
  try {
    await transporter.verify()
    const info = (await transporter.sendMail({
      from: settings.from,
      to: toEmail,
      subject: 'Site Portal: test message',
      text: `This is a test message from Site Portal, sent to check the organisation's SMTP settings (${config.host}:${config.port}).\n\nIf you can read it, mail works.`,
      html: `<p>This is a test message from Site Portal, sent to check the organisation's SMTP settings.</p><p>If you can read it, mail works.</p>`,
      messageId: `<test-${randomUUID()}@${config.fromAddress.split('@')[1] ?? 'site-portal.invalid'}>`,
    })) as { response?: string }
    return result(true, `The SMTP server at ${config.host}:${config.port} accepted a test message to ${toEmail}. Check that it arrived.`, info.response)
  } catch (error) {
    const failure = describeMailError(error, { host: config.host, port: config.port, from: settings.from, to: toEmail }, timeouts)
    return result(false, failure.message, failure.detail)
  } finally {
    transporter.close()
  }
}
