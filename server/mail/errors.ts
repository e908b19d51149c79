/**
 * What a failed SMTP conversation means to an administrator (docs/admin/mail.md "Failures"):
 * nodemailer's error (code, the command in flight, the server's reply) turned into one sentence
 * that says what failed and what to check, plus the technical detail.
 */

/** The parts of a nodemailer error we read (see nodemailer's NodemailerError). */
type SmtpError = Error & {
  code?: string | undefined
  originalCode?: string | undefined
  command?: string | undefined
  response?: string | undefined
  responseCode?: number | undefined
  permanent?: boolean | undefined
  timeoutType?: string | undefined
}

export type MailFailure = {
  /** In words an admin acts on, the server's reply included where there is one. */
  message: string
  /** The server's reply or the error code, for the curious. */
  detail: string | undefined
  /** The server's reply, when it sent one. */
  reply: string | undefined
  /**
   * The server refused this message for good (a 5xx reply to the recipient or to the message
   * itself): retrying it would get the same answer, so it goes to the dead letters at once.
   */
  messageRefused: boolean
}

export type SmtpTarget = { host: string; port: number; from?: string | undefined; to?: string | undefined }

const TLS_CODES = /^(ERR_SSL|ERR_TLS|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_|EPROTO$)/

function isSmtpError(error: unknown): error is SmtpError {
  return error instanceof Error
}

/** The server's reply, one line, without the trailing newline. */
function replyOf(error: SmtpError): string | undefined {
  const reply = error.response?.trim().replace(/\s+/g, ' ')
  return reply ? reply.slice(0, 300) : undefined
}

function seconds(ms: number | undefined): string {
  return ms === undefined ? '' : ` within ${Math.max(1, Math.round(ms / 1000))} s`
}

export function describeMailError(error: unknown, target: SmtpTarget, timeouts?: { connectionMs?: number; greetingMs?: number; socketMs?: number }): MailFailure {
  if (!isSmtpError(error)) return { message: `Sending failed: ${String(error)}.`, detail: undefined, reply: undefined, messageRefused: false }
  const where = `${target.host}:${target.port}`
  const reply = replyOf(error)
  const code = error.code ?? ''
  const original = error.originalCode ?? ''
  const command = (error.command ?? '').toUpperCase()
  const detail = reply ?? [code, original, error.message].filter(Boolean).join(' ')
  const result = (message: string, messageRefused = false): MailFailure => ({ message, detail, reply, messageRefused })
  const sender = target.from ? (/<([^>]+)>/.exec(target.from)?.[1] ?? target.from) : undefined

  if (code === 'EAUTH' || code === 'ENOAUTH') {
    if (reply) return result(`The SMTP server refused the user name or password (${reply}). Check the user name and password.`)
    if (/credentials/i.test(error.message)) return result('The SMTP server asks for a user name and password, and none is set. Enter them.')
    return result(`Signing in to the SMTP server at ${where} failed (${error.message}). Check the user name and password.`)
  }
  if (original === 'ECONNREFUSED') return result(`Could not connect to ${where}: nothing is listening there. Check the host and port.`)
  if (code === 'EDNS' || original === 'ENOTFOUND' || original === 'EAI_AGAIN') {
    return result(`Could not find the host “${target.host}”. Check the host name.`)
  }
  if (original === 'EHOSTUNREACH' || original === 'ENETUNREACH') {
    return result(`Could not reach ${where}: no route to that host. Check the host, and that this server's network can reach it.`)
  }
  if (code === 'ETIMEDOUT') {
    switch (error.timeoutType) {
      case 'CONNECT_TIMEOUT':
        return result(`No answer from ${where}${seconds(timeouts?.connectionMs)}. Check the host and port, and that a firewall lets this server reach it.`)
      case 'GREETING_TIMEOUT':
        return result(
          `${where} accepted the connection but sent no SMTP greeting${seconds(timeouts?.greetingMs)}. It may not be an SMTP server, or it expects TLS from the start (port 465: choose TLS).`,
        )
      case 'UPGRADE_TIMEOUT':
        return result(`The TLS upgrade (STARTTLS) with ${where} did not finish in time. Check the security setting.`)
      default:
        return result(
          `The SMTP server at ${where} stopped answering${seconds(timeouts?.socketMs)}${command && command !== 'CONN' ? ` (after ${command})` : ''}. It may be overloaded; try again later, and check the server if it keeps happening.`,
        )
    }
  }
  if (code === 'ETLS' || TLS_CODES.test(original) || /wrong version number|ssl|tls|certificate/i.test(error.message)) {
    if (/wrong version number|packet length too long|unknown protocol/i.test(error.message)) {
      return result(`${where} does not speak TLS from the start on this port. Choose STARTTLS (port 587) or none instead of TLS.`)
    }
    return result(
      `The secure connection (TLS) to ${where} failed (${error.message}). Check the security setting (465: TLS, 587: STARTTLS) and that the server's certificate is valid for ${target.host}.`,
    )
  }
  if (code === 'EENVELOPE' || command.startsWith('RCPT TO') || command.startsWith('MAIL FROM')) {
    const temporary = error.responseCode !== undefined && error.responseCode < 500
    if (error.responseCode === 530 || (command.startsWith('MAIL FROM') && /auth/i.test(reply ?? ''))) {
      return result(`The SMTP server wants a user name and password before it accepts mail (${reply ?? error.message}). Enter them.`)
    }
    if (command.startsWith('MAIL FROM')) {
      if (temporary) return result(`The SMTP server asked to try the sender later (${reply ?? error.message}). The message is tried again later.`)
      return result(
        `The SMTP server refused the sender ${sender ? `“${sender}” ` : ''}(${reply ?? error.message}). Check the from address: this server must be allowed to send as it.`,
      )
    }
    if (temporary) return result(`The SMTP server asked to try the recipient later (${reply ?? error.message}). The message is tried again later.`)
    return result(`The SMTP server refused the recipient ${target.to ? `“${target.to}” ` : ''}(${reply ?? error.message}). Check the address.`, error.permanent === true)
  }
  if (code === 'EMESSAGE' || command === 'DATA' || command.startsWith('DATA')) {
    if (error.permanent === true) return result(`The SMTP server refused the message (${reply ?? error.message}).`, true)
    return result(`The SMTP server did not accept the message just now (${reply ?? error.message}). It is tried again later.`)
  }
  if (code === 'ECONNECTION' || code === 'ESOCKET' || original === 'ECONNRESET' || original === 'EPIPE') {
    return result(
      `The SMTP server at ${where} closed the connection${reply ? ` (${reply})` : ''} before the message was sent. Check the host, port and security setting; if they are right, the server may be refusing this client.`,
    )
  }
  if (reply) return result(`The SMTP server answered ${reply}.`, error.permanent === true && command === 'DATA')
  return result(`Sending failed: ${error.message}.`)
}

/** The text kept as a message's or transport's last error: the sentence, with the server's reply when the sentence does not quote it. */
export function lastErrorText(failure: MailFailure): string {
  const text = failure.reply && !failure.message.includes(failure.reply) ? `${failure.message} The server answered: ${failure.reply}` : failure.message
  return text.slice(0, 1000)
}
