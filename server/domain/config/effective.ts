import { and, eq } from 'drizzle-orm'
import { PgTransaction } from 'drizzle-orm/pg-core'
import type { Database, Tx } from '#server/db/client'
import { adminConfig } from '#server/db/schema-settings'
import { withTenant } from '#server/db/tenancy'
import type { ConfigCategory } from '~/lib/admin/config'
import { MAIL_SECURITY } from '~/lib/schemas/admin-config'
import { PASSWORD_MIN } from '~/lib/schemas/auth'
import { defaultsOf } from './categories'
import { openSecret } from './secrets'

/**
 * What other parts of the server read of an organisation's configuration (issue 14): the saved
 * values of a category over its defaults, secrets opened. Given the database, they open a tenant
 * transaction of their own (row-level security is forced even for the owner). Given a transaction
 * (mail queued inside one), they read in it and change nothing of its state: a nested tenant
 * transaction would leave its role and tenant set on the caller's transaction to its end. In a
 * tenant transaction of another organisation, or an owner transaction bound by row-level
 * security, nothing is visible and the defaults apply. The `…In` variants read inside the caller's
 * tenant transaction.
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

function inTenant<T>(db: Database, tenantId: string, work: (tx: Tx) => Promise<T>): Promise<T> {
  return db instanceof PgTransaction ? work(db as Tx) : withTenant(db, tenantId, work)
}

type Saved = { values: Record<string, unknown>; secrets: Record<string, string>; version: number }

async function savedIn(tx: Tx, tenantId: string, category: ConfigCategory): Promise<Saved | undefined> {
  const [row] = await tx
    .select({ values: adminConfig.values, secrets: adminConfig.secrets, version: adminConfig.version })
    .from(adminConfig)
    .where(and(eq(adminConfig.tenantId, tenantId), eq(adminConfig.category, category)))
    .limit(1)
  // A row at version 0 only holds a test result: nothing was saved.
  return row && row.version > 0 ? row : undefined
}

/** The category's saved values over its defaults (no secrets), read in the caller's tenant transaction. */
export async function effectiveValuesIn(tx: Tx, tenantId: string, category: ConfigCategory): Promise<Effective<Record<string, unknown>>> {
  return effectiveValuesOf(category, await savedIn(tx, tenantId, category))
}

/** The same from a category's row read already (a page's shared reads read the telemetry row as they begin). */
export function effectiveValuesOf(category: ConfigCategory, row: { values: Record<string, unknown>; version: number } | undefined): Effective<Record<string, unknown>> {
  // A row at version 0 only holds a test result: nothing was saved.
  const saved = row && row.version > 0 ? row : undefined
  return { configured: saved !== undefined, values: { ...defaultsOf(category), ...saved?.values } }
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined)

function generalOf(values: Record<string, unknown>): GeneralConfig {
  return {
    siteName: text(values.siteName) ?? 'Site Portal',
    publicUrl: text(values.publicUrl),
    defaultLocale: text(values.defaultLocale) ?? 'en-GB',
    defaultTimeZone: text(values.defaultTimeZone) ?? 'UTC',
  }
}

/**
 * The organisation's SMTP settings with the password opened, or null until an admin saved them.
 * Without a sender name, the site name is the sender name. A password sealed under another
 * SESSION_SECRET cannot be opened and is left out (the server then refuses the sign-in, which
 * the outbox records as the transport's failure).
 */
export async function effectiveMailConfig(db: Database, sessionSecret: string, tenantId: string): Promise<Effective<MailConfig> | null> {
  return inTenant(db, tenantId, async (tx) => {
    const saved = await savedIn(tx, tenantId, 'mail')
    if (!saved) return null
    const general = generalOf((await effectiveValuesIn(tx, tenantId, 'general')).values)
    const values = { ...defaultsOf('mail'), ...saved.values }
    const sealed = saved.secrets.password
    const password = sealed ? openSecret(sessionSecret, { tenantId, category: 'mail', field: 'password' }, sealed) : undefined
    const security = MAIL_SECURITY.find((s) => s === values.security) ?? 'starttls'
    return {
      configured: true,
      values: {
        host: text(values.host) ?? '',
        port: typeof values.port === 'number' ? values.port : 587,
        security,
        username: text(values.username),
        password,
        fromAddress: text(values.fromAddress) ?? '',
        fromName: text(values.fromName) ?? general.siteName,
      },
    }
  })
}

export async function effectiveGeneralConfig(db: Database, tenantId: string): Promise<Effective<GeneralConfig>> {
  return inTenant(db, tenantId, async (tx) => {
    const general = await effectiveValuesIn(tx, tenantId, 'general')
    return { configured: general.configured, values: generalOf(general.values) }
  })
}

/** Security › session lifetime, in milliseconds: caps the absolute lifetime of this organisation's new sessions. */
export async function sessionLifetimeMsIn(tx: Tx, tenantId: string): Promise<number> {
  const { values } = await effectiveValuesIn(tx, tenantId, 'security')
  const hours = typeof values.sessionLifetimeHours === 'number' ? values.sessionLifetimeHours : undefined
  return hours === undefined ? Number.POSITIVE_INFINITY : hours * 60 * 60_000
}

/** Security › shortest password of a member of this organisation. */
export async function passwordMinLengthIn(tx: Tx, tenantId: string): Promise<number> {
  const { values } = await effectiveValuesIn(tx, tenantId, 'security')
  return typeof values.passwordMinLength === 'number' ? Math.max(PASSWORD_MIN, values.passwordMinLength) : PASSWORD_MIN
}

/** Storage › largest photo, in bytes. */
export async function maxPhotoBytesIn(tx: Tx, tenantId: string): Promise<number> {
  const { values } = await effectiveValuesIn(tx, tenantId, 'storage')
  return typeof values.maxPhotoMb === 'number' ? values.maxPhotoMb * 1024 * 1024 : Number.POSITIVE_INFINITY
}

/** Identity provider (issue 16): what the OIDC sign-in needs, secret opened. */
export type IdentityProviderConfig = { enabled: boolean; issuer?: string | undefined; clientId?: string | undefined; clientSecret?: string | undefined }

/**
 * The organisation's identity-provider settings (server/domain/oidc reads them), or null until an
 * admin saved them. A secret sealed under another SESSION_SECRET cannot be opened and is left out
 * (the sign-in then says the organisation's provider is not set up).
 */
export async function effectiveIdentityProviderConfig(db: Database, sessionSecret: string, tenantId: string): Promise<IdentityProviderConfig | null> {
  return inTenant(db, tenantId, async (tx) => {
    const saved = await savedIn(tx, tenantId, 'identity-provider')
    if (!saved) return null
    const values = { ...defaultsOf('identity-provider'), ...saved.values }
    const sealed = saved.secrets.clientSecret
    return {
      enabled: values.enabled === true,
      issuer: text(values.issuer),
      clientId: text(values.clientId),
      clientSecret: sealed ? openSecret(sessionSecret, { tenantId, category: 'identity-provider', field: 'clientSecret' }, sealed) : undefined,
    }
  })
}
