import { mkdir, rename, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { eq, inArray, sql } from 'drizzle-orm'
import type { Database } from '#server/db/client'
import { mailOutbox } from '#server/db/schema'
import type { Logger } from '#server/http/logger'
import { rowsOf } from '#server/db/tenancy'
import { startPeriodic, type PeriodicJob } from './periodic'

export type OutboxMail = { id: string; to: string; subject: string; text: string; createdAt: Date }
export type MailTransport = { name: string; send(mail: OutboxMail): Promise<void> }

const BATCH = 20
const MAX_ATTEMPTS = 5

/**
 * Writes each mail as an .eml file into a folder (like Django's file e-mail backend): for
 * development, and for the browser tests, which read the links from there. Written under a
 * temporary name and renamed, so a reader never sees half a file.
 */
export function fileTransport(dir: string): MailTransport {
  return {
    name: 'file',
    async send(mail) {
      await mkdir(dir, { recursive: true })
      const name = `${mail.createdAt.toISOString().replace(/[:.]/g, '-')}-${mail.id}.eml`
      const body = `To: ${mail.to}\nSubject: ${mail.subject}\nDate: ${mail.createdAt.toUTCString()}\nContent-Type: text/plain; charset=utf-8\n\n${mail.text}`
      const temp = path.join(dir, `.${name}.tmp`)
      await writeFile(temp, body, 'utf8')
      await rename(temp, path.join(dir, name))
    },
  }
}

/**
 * Claims queued mail (SKIP LOCKED, so several instances never send one mail twice) and hands it
 * to the transport; a failure goes back to the queue until MAX_ATTEMPTS.
 */
export async function deliverQueuedMail(db: Database, transport: MailTransport, logger: Logger, now: () => Date): Promise<number> {
  const claimed = rowsOf<{ id: string; to_address: string; subject: string; text_body: string; created_at: string | Date; attempts: number }>(
    await db.execute(sql`
      update mail_outbox set status = 'sending', attempts = attempts + 1
      where id in (select id from mail_outbox where status = 'queued' order by created_at limit ${BATCH} for update skip locked)
      returning id, to_address, subject, text_body, created_at, attempts`),
  )
  for (const row of claimed) {
    try {
      await transport.send({ id: row.id, to: row.to_address, subject: row.subject, text: row.text_body, createdAt: new Date(row.created_at) })
      await db.update(mailOutbox).set({ status: 'sent', sentAt: now(), lastError: null }).where(eq(mailOutbox.id, row.id))
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      logger.warn({ mailId: row.id, err: error }, 'mail delivery failed')
      await db
        .update(mailOutbox)
        .set({ status: row.attempts >= MAX_ATTEMPTS ? 'failed' : 'queued', lastError: message.slice(0, 500) })
        .where(inArray(mailOutbox.id, [row.id]))
    }
  }
  return claimed.length
}

/** Polls the outbox until stopped. */
export function startMailDelivery(options: { db: Database; transport: MailTransport; logger: Logger; intervalMs?: number }): PeriodicJob {
  const { db, transport, logger, intervalMs = 1_000 } = options
  logger.info({ transport: transport.name }, 'mail delivery started')
  return startPeriodic({
    name: 'mail delivery pass',
    intervalMs,
    logger,
    pass: async () => {
      await deliverQueuedMail(db, transport, logger, () => new Date())
    },
  })
}
