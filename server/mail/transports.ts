import { mkdir, rename, writeFile } from 'node:fs/promises'
import path from 'node:path'
import nodemailer from 'nodemailer'
import type { MailConfig } from '#server/domain/config/effective'

/**
 * The ways mail leaves the server (docs/admin/mail.md "Transports"): an SMTP server (the
 * organisation's own or the instance's) through nodemailer, or, in development, .eml files in a
 * folder. Every transport sends the plain-text part, and the HTML part when the message has one.
 */

export type OutgoingMessage = { id: string; to: string; subject: string; text: string; html: string | null; createdAt: Date }

export type MailTransport = {
  /** `instance`, `file` or `tenant:{id}`: the failure-tracking key (mail_transport_health). */
  key: string
  /** For logs and the outbox page, e.g. "SMTP smtp.example.com:587 (STARTTLS)". */
  description: string
  /** Where the failure happened, for the admin's message. */
  target: { host: string; port: number; from: string }
  send(message: OutgoingMessage): Promise<{ response: string | undefined }>
  close(): void
}

export type SmtpSettings = {
  host: string
  port: number
  /** `opportunistic` (SMTP_URL `smtp://` only): STARTTLS when the server offers it. */
  security: MailConfig['security'] | 'opportunistic'
  username?: string | undefined
  password?: string | undefined
  /** The From header, e.g. `"Site Portal" <no-reply@example.com>`. */
  from: string
}

/** How long an SMTP server may take at each step, so a slow or silent one cannot stall the worker. */
export type SmtpTimeouts = { connectionMs: number; greetingMs: number; socketMs: number }

export const DEFAULT_SMTP_TIMEOUTS: SmtpTimeouts = { connectionMs: 20_000, greetingMs: 20_000, socketMs: 60_000 }

const SECURITY_LABELS: Record<SmtpSettings['security'], string> = { none: 'no TLS', starttls: 'STARTTLS', tls: 'TLS', opportunistic: 'STARTTLS when offered' }

/** `"Name" <address>` when a name is set. */
export function fromHeader(address: string, name?: string): string {
  return name ? `"${name.replace(/["\\\r\n]/g, '')}" <${address}>` : address
}

export function smtpSettingsFromConfig(config: MailConfig): SmtpSettings {
  return {
    host: config.host,
    port: config.port,
    security: config.security,
    username: config.username || undefined,
    password: config.password || undefined,
    from: fromHeader(config.fromAddress, config.fromName),
  }
}

/**
 * SMTP_URL (`smtp://user:pass@host:587`, `smtps://user:pass@host:465`): smtps is TLS from the
 * start; smtp upgrades with STARTTLS when the server offers it, or insists with `?starttls=required`.
 */
export function smtpSettingsFromUrl(url: string, from: string): SmtpSettings {
  const parsed = new URL(url)
  const secure = parsed.protocol === 'smtps:'
  const starttls = parsed.searchParams.get('starttls')
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, ''),
    port: parsed.port ? Number(parsed.port) : secure ? 465 : 587,
    security: secure ? 'tls' : starttls === 'required' ? 'starttls' : starttls === 'never' ? 'none' : 'opportunistic',
    username: parsed.username ? decodeURIComponent(parsed.username) : undefined,
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
    from,
  }
}

/** nodemailer's options for these settings. */
function transportOptions(settings: SmtpSettings, timeouts: SmtpTimeouts) {
  const { security } = settings
  return {
    host: settings.host,
    port: settings.port,
    secure: security === 'tls',
    requireTLS: security === 'starttls',
    ignoreTLS: security === 'none',
    ...(settings.username !== undefined && { auth: { user: settings.username, pass: settings.password ?? '' } }),
    connectionTimeout: timeouts.connectionMs,
    greetingTimeout: timeouts.greetingMs,
    socketTimeout: timeouts.socketMs,
    dnsTimeout: Math.min(timeouts.connectionMs, 10_000),
    // One connection per pass and transport; nodemailer's pool would hold sockets between passes.
    pool: false,
    disableFileAccess: true,
    disableUrlAccess: true,
  }
}

export function describeSmtp(settings: SmtpSettings): string {
  return `SMTP ${settings.host}:${settings.port} (${SECURITY_LABELS[settings.security]})`
}

/** The Message-ID: stable per outbox row, so a server or client that sees a message twice can tell. */
function messageIdOf(message: OutgoingMessage, from: string): string {
  const domain = /@([^>\s]+)>?\s*$/.exec(from)?.[1] ?? 'site-portal.invalid'
  return `<${message.id}@${domain}>`
}

function mailOptions(message: OutgoingMessage, from: string) {
  return {
    from,
    to: message.to,
    subject: message.subject,
    text: message.text,
    ...(message.html !== null && { html: message.html }),
    date: message.createdAt,
    messageId: messageIdOf(message, from),
  }
}

export function smtpTransport(key: string, settings: SmtpSettings, timeouts: SmtpTimeouts = DEFAULT_SMTP_TIMEOUTS): MailTransport {
  const transporter = nodemailer.createTransport(transportOptions(settings, timeouts))
  return {
    key,
    description: describeSmtp(settings),
    target: { host: settings.host, port: settings.port, from: settings.from },
    async send(message) {
      const info = (await transporter.sendMail(mailOptions(message, settings.from))) as { response?: string }
      return { response: info.response }
    },
    close: () => transporter.close(),
  }
}

/** A nodemailer transport for one-off use (the configuration's SMTP test), with its options. */
export function createSmtpTransporter(settings: SmtpSettings, timeouts: SmtpTimeouts) {
  return nodemailer.createTransport(transportOptions(settings, timeouts))
}

/**
 * Writes each message as a real MIME .eml file (built by nodemailer, text and HTML parts) into a
 * folder, like Django's file e-mail backend: for development and the browser tests. Written under
 * a temporary name and renamed, so a reader never sees half a file.
 */
export function fileTransport(dir: string, from: string): MailTransport {
  const transporter = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' })
  return {
    key: 'file',
    description: `files in ${dir}`,
    target: { host: dir, port: 0, from },
    async send(message) {
      const info = (await transporter.sendMail(mailOptions(message, from))) as { message: Buffer }
      await mkdir(dir, { recursive: true })
      const name = `${message.createdAt.toISOString().replace(/[:.]/g, '-')}-${message.id}.eml`
      const temp = path.join(dir, `.${name}.tmp`)
      await writeFile(temp, info.message)
      await rename(temp, path.join(dir, name))
      return { response: `written to ${name}` }
    },
    close: () => transporter.close(),
  }
}
