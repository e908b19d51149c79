import type { AddressInfo, Socket } from 'node:net'
import { simpleParser } from 'mailparser'
import { SMTPServer, type SMTPServerOptions } from 'smtp-server'

/**
 * A real SMTP server in the test process (smtp-server, nodemailer's sibling), so mail is sent
 * through a real SMTP conversation and read back as it arrived. The modes stand in for the
 * servers an admin meets: one that works, one that refuses the credentials, one that refuses the
 * message, one that drops the connection, one that is slow.
 */
export type SmtpMode = 'ok' | 'refuse-auth' | 'reject-mail' | 'drop' | 'slow'

export type ReceivedMail = { from: string; to: string[]; subject: string; text: string; html: string | undefined; raw: string; receivedAt: number }

export type TestSmtpServer = {
  host: string
  port: number
  /** Credentials the server accepts (when started with `auth`). */
  user: string
  password: string
  messages: ReceivedMail[]
  /** Connections accepted, including ones the mode dropped. */
  connections: number
  setMode(mode: SmtpMode): void
  /** The first message (arriving now or later) that matches; rejects after the timeout. */
  waitFor(match: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>
  close(): Promise<void>
}

export type TestSmtpOptions = {
  /** Require AUTH PLAIN/LOGIN with these credentials (default: required, user `mailer`, password `s3cret-pass`). */
  auth?: { user: string; password: string } | false
  mode?: SmtpMode
  /** How long the slow mode waits before answering DATA. */
  slowMs?: number
  port?: number
}

export async function startSmtpServer(options: TestSmtpOptions = {}): Promise<TestSmtpServer> {
  const credentials = options.auth === false ? undefined : (options.auth ?? { user: 'mailer', password: 's3cret-pass' })
  let mode: SmtpMode = options.mode ?? 'ok'
  const slowMs = options.slowMs ?? 5_000
  const messages: ReceivedMail[] = []
  const waiters: { match: (mail: ReceivedMail) => boolean; resolve: (mail: ReceivedMail) => void }[] = []
  let connections = 0

  const serverOptions: SMTPServerOptions = {
    secure: false,
    disabledCommands: ['STARTTLS'],
    authOptional: credentials === undefined,
    ...(credentials === undefined && { disabledCommands: ['STARTTLS', 'AUTH'] }),
    logger: false,
    onAuth(auth, _session, callback) {
      if (mode === 'refuse-auth' || !credentials || auth.username !== credentials.user || auth.password !== credentials.password) {
        callback(new Error('Invalid username or password'))
        return
      }
      callback(null, { user: auth.username })
    },
    onMailFrom(_address, _session, callback) {
      if (mode === 'reject-mail') {
        callback(Object.assign(new Error('Relay access denied'), { responseCode: 550 }))
        return
      }
      callback()
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8')
        const finish = async () => {
          const parsed = await simpleParser(raw)
          const mail: ReceivedMail = {
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : undefined,
            raw,
            receivedAt: Date.now(),
          }
          messages.push(mail)
          for (const waiter of [...waiters]) {
            if (waiter.match(mail)) {
              waiters.splice(waiters.indexOf(waiter), 1)
              waiter.resolve(mail)
            }
          }
          callback()
        }
        if (mode === 'slow') setTimeout(() => void finish(), slowMs)
        else void finish()
      })
    },
  }
  const server = new SMTPServer(serverOptions)
  server.on('error', () => undefined)
  // Every connection, and in the drop mode its end before the greeting: the client sees the connection close.
  server.server.prependListener('connection', (socket: Socket) => {
    connections += 1
    if (mode === 'drop') socket.destroy()
  })
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve))
  const address = server.server.address() as AddressInfo

  return {
    host: '127.0.0.1',
    port: address.port,
    user: credentials?.user ?? '',
    password: credentials?.password ?? '',
    messages,
    get connections() {
      return connections
    },
    setMode(next) {
      mode = next
    },
    waitFor(match, timeoutMs = 10_000) {
      const found = messages.find(match)
      if (found) return Promise.resolve(found)
      return new Promise((resolve, reject) => {
        const waiter = { match, resolve }
        waiters.push(waiter)
        setTimeout(() => {
          const at = waiters.indexOf(waiter)
          if (at >= 0) {
            waiters.splice(at, 1)
            reject(new Error(`No matching mail arrived at the test SMTP server in ${timeoutMs} ms (${messages.length} received)`))
          }
        }, timeoutMs)
      })
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
