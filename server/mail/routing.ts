import type { Database } from '#server/db/client'
import { effectiveMailConfig } from '#server/domain/config/effective'
import { DEFAULT_SMTP_TIMEOUTS, fileTransport, smtpSettingsFromConfig, smtpSettingsFromUrl, smtpTransport, describeSmtp, type MailTransport, type SmtpTimeouts } from './transports'

/**
 * Which transport takes a message (docs/admin/mail.md "Transports"): the organisation's own SMTP
 * server when its mail settings are saved, else the instance's SMTP_URL, else MAIL_FILE_DIR
 * (development), else none: the message stays queued until one is configured.
 */

export type MailRouter = {
  /** The instance's transport, if one is configured. */
  instance: MailTransport | undefined
  /** The organisation's own SMTP server, when its mail settings are saved; undefined otherwise. */
  forTenant(tenantId: string): Promise<MailTransport | undefined>
  /** Closes the connections the router opened. */
  close(): void
}

export type InstanceMailSettings = { smtpUrl: string | undefined; mailFrom: string; mailFileDir: string | undefined }

/** Where the instance sends mail, for the start-up log and the outbox page: null when nowhere. */
export function instanceMailRoute(settings: InstanceMailSettings): { key: 'instance' | 'file'; description: string } | null {
  if (settings.smtpUrl) return { key: 'instance', description: describeSmtp(smtpSettingsFromUrl(settings.smtpUrl, settings.mailFrom)) }
  if (settings.mailFileDir) return { key: 'file', description: `files in ${settings.mailFileDir}` }
  return null
}

function instanceTransport(settings: InstanceMailSettings, timeouts: SmtpTimeouts): MailTransport | undefined {
  if (settings.smtpUrl) return smtpTransport('instance', smtpSettingsFromUrl(settings.smtpUrl, settings.mailFrom), timeouts)
  if (settings.mailFileDir) return fileTransport(settings.mailFileDir, settings.mailFrom)
  return undefined
}

/** The router of one delivery pass: transports are opened when first needed and closed at its end. */
export function createMailRouter(options: { db: Database; sessionSecret: string; instance: InstanceMailSettings; timeouts?: SmtpTimeouts }): MailRouter {
  const timeouts = options.timeouts ?? DEFAULT_SMTP_TIMEOUTS
  const instance = instanceTransport(options.instance, timeouts)
  const tenants = new Map<string, MailTransport | undefined>()
  return {
    instance,
    async forTenant(tenantId) {
      if (tenants.has(tenantId)) return tenants.get(tenantId)
      const effective = await effectiveMailConfig(options.db, options.sessionSecret, tenantId)
      const transport = effective?.configured ? smtpTransport(`tenant:${tenantId}`, smtpSettingsFromConfig(effective.values), timeouts) : undefined
      tenants.set(tenantId, transport)
      return transport
    },
    close() {
      instance?.close()
      for (const transport of tenants.values()) transport?.close()
    },
  }
}
