import { and, inArray, ne, sql } from 'drizzle-orm'
import { isLoopbackUrl } from '#server/config'
import type { Database } from '#server/db/client'
import { DEMO } from '#server/db/demo-accounts'
import { users } from '#server/db/schema'
import type { Logger } from '#server/http/logger'

/**
 * The demo accounts (server/db/demo-accounts.ts) have published passwords and a published TOTP
 * secret. They are harmless on a laptop (the public URL is a loopback address) and an open door
 * anywhere else (issue 36 §1): a server reached at another address that finds them says so in its
 * log at every start, and on its administrators' control panel, until they are removed.
 */

const DEMO_EMAILS = [DEMO.admin.email, DEMO.user.email, DEMO.otherUser.email].map((email) => email.toLowerCase())

/** The demo accounts present in this database (their addresses), unless deleted. */
export async function demoAccountsPresent(db: Database): Promise<string[]> {
  const rows = await db
    .select({ email: users.email })
    .from(users)
    .where(and(inArray(sql`lower(${users.email})`, DEMO_EMAILS), ne(users.status, 'deleted')))
  return rows.map((row) => row.email).sort()
}

/** The demo accounts present where they can hurt: none when the public URL is a loopback address. */
export async function exposedDemoAccounts(db: Database, publicUrl: string): Promise<string[]> {
  if (isLoopbackUrl(publicUrl)) return []
  return demoAccountsPresent(db)
}

/** At every start: an error in the log while demo accounts can be signed in to from elsewhere. */
export async function reportExposedDemoAccounts(db: Database, publicUrl: string, logger: Pick<Logger, 'error'>): Promise<string[]> {
  const exposed = await exposedDemoAccounts(db, publicUrl)
  if (exposed.length === 0) return exposed
  logger.error(
    { event: 'Security.DemoAccounts.Exposed', accounts: exposed, publicUrl },
    `the demo accounts (${exposed.join(', ')}) exist in this database and their passwords are public, but this server is reached at ${publicUrl}: ` +
      'remove them (Administration › Users, as another administrator) or use this database only on a loopback address. Leave SEED unset or false so none are made.',
  )
  return exposed
}
