import type { Database } from '#server/db/client'

/**
 * What other parts of the server read of an organisation's configuration (issue 14): the saved
 * values of a category over its defaults, secrets opened. Read as the database owner (jobs run
 * outside any tenant transaction), always filtered by the tenant.
 *
 * STUB: the configuration work (server/domain/config/*) implements it; the signature is the contract.
 */

/** The mail category (SMTP). `configured` is false until an admin saved it. */
export type MailConfig = {
  host: string
  port: number
  /** none: plain (local relays only); starttls: upgrade on 587; tls: implicit TLS on 465. */
  security: 'none' | 'starttls' | 'tls'
  username?: string | undefined
  password?: string | undefined
  fromAddress: string
  fromName?: string | undefined
}

export type GeneralConfig = { siteName: string; publicUrl?: string | undefined; defaultLocale: string; defaultTimeZone: string }

export type Effective<T> = { configured: boolean; values: T }

export async function effectiveMailConfig(_db: Database, _sessionSecret: string, _tenantId: string): Promise<Effective<MailConfig> | null> {
  return null
}

export async function effectiveGeneralConfig(_db: Database, _tenantId: string): Promise<Effective<GeneralConfig>> {
  return { configured: false, values: { siteName: 'Site Portal', defaultLocale: 'en-GB', defaultTimeZone: 'UTC' } }
}
