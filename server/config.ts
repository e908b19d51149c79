import { createHmac, randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs'
import path from 'node:path'
import { z } from 'zod'
import { PASSWORD_HASH_COST } from './domain/auth/passwords'
import { readStoreConfig, storeEnvShape, type StoreConfig } from './domain/store/store-config'

/**
 * The environment is read here, once, at start. Everything else receives this typed object and
 * never touches process.env. A bad value stops start-up with a message naming the variable.
 */
const booleanish = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'])
  .transform((v) => ['true', '1', 'yes', 'on'].includes(v))

const HASH_COST_RANGE = `must be a whole number from ${PASSWORD_HASH_COST.min} to ${PASSWORD_HASH_COST.max}`

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('production'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  BACKEND_URL: z.url({ error: 'must be an absolute http(s) URL' }).optional(),
  PUBLIC_URL: z.url({ error: 'must be an absolute http(s) URL' }).optional(),
  SESSION_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_FILE: z.string().min(1).optional(),
  // Unset: on only when PUBLIC_URL is a loopback address (a laptop); the demo accounts' passwords are public.
  SEED: booleanish.optional(),
  COOKIE_SECURE: booleanish.optional(),
  TRUST_PROXY: booleanish.default(false),
  DEMO_AUTO_SESSION: booleanish.default(false),
  MAIL_FILE_DIR: z.string().min(1).optional(),
  SOURCE_MAPS_DIR: z.string().min(1).default('./build/sourcemaps'),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/[^/?#]+/, 'must be an smtp:// or smtps:// URL, e.g. smtp://user:password@smtp.example.com:587')
    .refine((url) => URL.canParse(url), 'must be an smtp:// or smtps:// URL, e.g. smtp://user:password@smtp.example.com:587 (encode special characters of the password)')
    .optional(),
  MAIL_FROM: z
    .string()
    .regex(/^(?:[^<>@\r\n]*<[^<>@\s]+@[^<>@\s]+>|[^<>@\s]+@[^<>@\s]+)$/, 'must be an address, e.g. no-reply@example.com or "Site Portal <no-reply@example.com>"')
    .optional(),
  MAX_BODY_BYTES: z.coerce.number().int().min(1024).max(64 * 1024 * 1024).default(1024 * 1024),
  SCHEMA_CHECK_SAMPLE: z.coerce.number().min(0, 'must be from 0 to 1').max(1, 'must be from 0 to 1').optional(),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .optional(),
  DIAGNOSTICS_INTERVAL_MINUTES: z.coerce.number().int('must be a whole number of minutes').min(0, 'must be 0 (off) or more').max(1440, 'must be at most 1440 (a day)').default(15),
  PLATFORM_OPERATOR_EMAILS: z
    .string()
    .transform((text) => text.split(',').map((address) => address.trim().toLowerCase()).filter(Boolean))
    .refine((list) => list.every((address) => /^[^\s@]+@[^\s@]+$/.test(address)), 'must be e-mail addresses separated by commas')
    .optional(),
  BILLING_PROVIDER: z.enum(['none', 'test', 'stripe'], { error: 'must be none, test or stripe' }).default('none'),
  STRIPE_SECRET_KEY: z.string().regex(/^(sk|rk)_(test|live)_\S+$/, 'must be a Stripe secret or restricted key (sk_… or rk_…)').optional(),
  STRIPE_WEBHOOK_SECRET: z.string().regex(/^whsec_\S+$/, 'must be the webhook endpoint\'s signing secret (whsec_…)').optional(),
  STRIPE_PRICE_TEAM: z.string().regex(/^price_\S+$/, 'must be a Stripe price id (price_…)').optional(),
  STRIPE_PRICE_BUSINESS: z.string().regex(/^price_\S+$/, 'must be a Stripe price id (price_…)').optional(),
  BILLING_TEST_WEBHOOK_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
  FEATURE_FLAGS: z
    .string()
    .transform((text, ctx) => {
      try {
        const value: unknown = JSON.parse(text)
        if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>
      } catch {
        // reported below
      }
      ctx.addIssue({ code: 'custom', message: 'must be a JSON object, e.g. {"mobileSync":true}' })
      return z.NEVER
    })
    .optional(),
  // App stores (APPLE_*, GOOGLE_*, IAP_PRODUCTS, STORE_TIMEOUT_MS): docs/store-subscriptions.md.
  ...storeEnvShape,
  // Operations at scale (docs/operations.md): the blob store, metrics, draining.
  BLOB_STORE: z.enum(['file', 's3'], { error: 'must be file or s3' }).default('file'),
  S3_ENDPOINT: z.url({ error: 'must be an absolute http(s) URL, e.g. http://127.0.0.1:9000' }).optional(),
  S3_BUCKET: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be a bucket name (3–63 lower-case letters, digits, dots and hyphens)').optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_FORCE_PATH_STYLE: booleanish.default(false),
  S3_KEY_PREFIX: z.string().regex(/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/, 'must be path segments such as site-portal/production').optional(),
  S3_PRESIGN_MIN_BYTES: z.coerce.number().int('must be a whole number of bytes').min(0, 'must be 0 (off) or more').default(0),
  S3_PRESIGN_TTL_SECONDS: z.coerce.number().int().min(10, 'must be at least 10 seconds').max(3600, 'must be at most 3600 (an hour)').default(60),
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  DB_STATEMENT_LOG: booleanish.default(false),
  // docs/exports.md "Large exports as a job": a PDF export of more items (or, for a report, more photos) than these runs as a job.
  EXPORT_JOB_ITEMS: z.coerce.number().int().min(0).max(1_000_000).default(200),
  EXPORT_JOB_PHOTOS: z.coerce.number().int().min(0).max(1_000_000).default(400),
  /** A pause after each batch of an export job, so a long export leaves the instance's CPU to the people using it. */
  EXPORT_JOB_PAUSE_MS: z.coerce.number().int().min(0, 'must be 0 or more').max(60_000, 'must be at most 60000 (a minute)').default(0),
  EXPORT_LINK_HOURS: z.coerce.number().int().min(1, 'must be at least 1 hour').max(24 * 30, 'must be at most 720 (30 days)').default(24),
  SHUTDOWN_DEADLINE_SECONDS: z.coerce.number().int().min(1, 'must be at least 1 second').max(600, 'must be at most 600 (ten minutes)').default(25),
  PASSWORD_HASH_COST: z.coerce.number().int(HASH_COST_RANGE).min(PASSWORD_HASH_COST.min, HASH_COST_RANGE).max(PASSWORD_HASH_COST.max, HASH_COST_RANGE).default(PASSWORD_HASH_COST.default),
})

export type Config = {
  env: 'development' | 'production' | 'test'
  port: number
  host: string
  dataDir: string
  databaseUrl: string | undefined
  backendUrl: string | undefined
  publicUrl: string
  sessionSecret: string
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL']
  /** LOG_FILE: every log line is also appended to this file (docs/operations.md "Logs"). */
  logFile: string | undefined
  seed: boolean
  cookieSecure: boolean
  trustProxy: boolean
  /** Allows POST /auth/demo-session (spec §4 demo admin session); the web build must ask for it too. */
  demoAutoSession: boolean
  /** Deliver queued mail as .eml files into this folder (development and tests), when no SMTP_URL is set. */
  mailFileDir: string | undefined
  /** The client build's source maps, kept out of build/client so browsers never get them (scripts/build-server.mjs moves them); read to map frontend error stacks. */
  sourceMapsDir: string
  /** The instance's SMTP server (docs/admin/mail.md); an organisation's own SMTP settings take precedence for its mail. */
  smtpUrl: string | undefined
  /** The From of mail sent through the instance's transport (SMTP_URL or MAIL_FILE_DIR). */
  mailFrom: string
  /** The largest JSON or form body any call accepts (uploads declare their own, larger limits). */
  maxBodyBytes: number
  /** The share of JSON responses checked against their call's declared schema (schema incidents): 0–1; 0.01 in production, 1 otherwise. */
  schemaCheckSample: number
  /** Redis for the realtime hub's backplane and shared presence (several instances); unset: in memory. */
  redisUrl: string | undefined
  /** How often the instance's own diagnostics run (docs/observability.md "Diagnostics"); 0: never. */
  diagnosticsIntervalMinutes: number
  /** Feature flags every session carries (spec §3 featureFlags), under each tenant's own (tenants.feature_flags). */
  featureFlags: Record<string, unknown>
  /** PLATFORM_OPERATOR_EMAILS, lower-cased: people (by verified address) who may change any organisation's licence (docs/licensing.md). */
  platformOperatorEmails: string[]
  /** The web checkout's payment provider (docs/billing.md); 'none' leaves online payment off. */
  billing: BillingConfig
  /** The app stores whose subscriptions an organisation can link (docs/store-subscriptions.md); each undefined when not configured. */
  store: StoreConfig
  /** Where photo and document bytes live (docs/operations.md "File storage"): the data folder, or an S3-compatible bucket. */
  blobs: BlobsConfig
  /** GET /metrics (docs/operations.md "Metrics"): behind a bearer token, on a port of its own, both, or neither (then off). */
  metrics: {
    token: string | undefined
    port: number | undefined
    host: string
    /** DB_STATEMENT_LOG: every SQL statement's text on stderr (finding what a screen sends; docs/performance.md). */
    statementLog: boolean
  }
  /** How long a stopping instance lets requests and uploads in flight finish (SIGTERM → exit). */
  shutdownDeadlineMs: number
  /** PASSWORD_HASH_COST: scrypt's cost as log2 N for new hashes (server/domain/auth/passwords.ts). */
  passwordHashCost: number
  /** docs/exports.md "Large exports as a job": above `items` items (or, for a report PDF, `photos` photos) a PDF export runs as a job; its link works `linkHours`. */
  exportJobs: { items: number; photos: number; linkHours: number; pauseMs: number }
}

export type BlobsConfig =
  | { store: 'file' }
  | {
      store: 's3'
      /** S3_ENDPOINT; undefined: the SDK's default endpoint for the region. */
      endpoint: string | undefined
      bucket: string
      region: string
      forcePathStyle: boolean
      /** Keys are stored under this prefix (several portals may share one bucket). */
      keyPrefix: string | undefined
      /** Downloads of at least this many bytes are answered with a short-lived presigned URL after the permission check; 0: never. */
      presignMinBytes: number
      presignTtlSeconds: number
    }

export type BillingConfig =
  | { provider: 'none' }
  /** The built-in provider with its own checkout page, for development and tests; its webhooks are signed with testWebhookSecret. */
  | { provider: 'test'; testWebhookSecret: string }
  | { provider: 'stripe'; stripe: { secretKey: string; webhookSecret: string; prices: { team: string; business: string } } }

export class ConfigError extends Error {}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const blanksRemoved = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''))
  const parsed = envSchema.safeParse(blanksRemoved)
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`)
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`)
  }
  const e = parsed.data
  if (e.SMTP_URL && !e.MAIL_FROM) throw new ConfigError('Invalid configuration:\n  MAIL_FROM: is required with SMTP_URL, e.g. "Site Portal <no-reply@example.com>"')
  const dataDir = path.resolve(e.DATA_DIR)
  const publicUrl = (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/$/, '')
  const sessionSecret = e.SESSION_SECRET ?? readOrCreateSecret(dataDir)
  const store = readStoreConfig(e)
  if ('problems' in store) throw new ConfigError(`Invalid configuration:\n${store.problems.join('\n')}`)
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    dataDir,
    databaseUrl: e.DATABASE_URL,
    backendUrl: e.BACKEND_URL,
    publicUrl,
    sessionSecret,
    logLevel: e.LOG_LEVEL,
    logFile: e.LOG_FILE ? path.resolve(e.LOG_FILE) : undefined,
    seed: e.SEED ?? isLoopbackUrl(publicUrl),
    // Secure cookies need https; browsers accept them on http://localhost only, not on a LAN address.
    cookieSecure: e.COOKIE_SECURE ?? publicUrl.startsWith('https://'),
    trustProxy: e.TRUST_PROXY,
    demoAutoSession: e.DEMO_AUTO_SESSION,
    mailFileDir: e.MAIL_FILE_DIR ? path.resolve(e.MAIL_FILE_DIR) : undefined,
    sourceMapsDir: path.resolve(e.SOURCE_MAPS_DIR),
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM ?? 'Site Portal <no-reply@localhost>',
    maxBodyBytes: e.MAX_BODY_BYTES,
    schemaCheckSample: e.SCHEMA_CHECK_SAMPLE ?? (e.NODE_ENV === 'production' ? 0.01 : 1),
    redisUrl: e.REDIS_URL,
    diagnosticsIntervalMinutes: e.DIAGNOSTICS_INTERVAL_MINUTES,
    featureFlags: e.FEATURE_FLAGS ?? {},
    platformOperatorEmails: e.PLATFORM_OPERATOR_EMAILS ?? [],
    billing: billingConfig(e, sessionSecret),
    store: store.config,
    blobs: blobsConfig(e),
    metrics: { token: e.METRICS_TOKEN, port: e.METRICS_PORT, host: e.METRICS_HOST, statementLog: e.DB_STATEMENT_LOG },
    shutdownDeadlineMs: e.SHUTDOWN_DEADLINE_SECONDS * 1000,
    passwordHashCost: e.PASSWORD_HASH_COST,
    exportJobs: { items: e.EXPORT_JOB_ITEMS, photos: e.EXPORT_JOB_PHOTOS, linkHours: e.EXPORT_LINK_HOURS, pauseMs: e.EXPORT_JOB_PAUSE_MS },
  }
}

/** Only this machine can reach it: localhost, *.localhost, 127.0.0.0/8 or ::1 (where the demo data may be seeded by default). */
export function isLoopbackUrl(url: string): boolean {
  let hostname: string
  try {
    hostname = new URL(url).hostname.toLowerCase()
  } catch {
    return false
  }
  return hostname === 'localhost' || hostname.endsWith('.localhost') || /^127(?:\.\d{1,3}){3}$/.test(hostname) || hostname === '[::1]'
}

/** BLOB_STORE and, for s3, its bucket (credentials come from the SDK's standard chain: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, profiles, roles). */
function blobsConfig(e: z.infer<typeof envSchema>): BlobsConfig {
  if (e.BLOB_STORE === 'file') return { store: 'file' }
  if (!e.S3_BUCKET) throw new ConfigError('Invalid configuration:\n  S3_BUCKET: is required with BLOB_STORE=s3')
  return {
    store: 's3',
    endpoint: e.S3_ENDPOINT,
    bucket: e.S3_BUCKET,
    region: e.S3_REGION,
    forcePathStyle: e.S3_FORCE_PATH_STYLE,
    keyPrefix: e.S3_KEY_PREFIX,
    presignMinBytes: e.S3_PRESIGN_MIN_BYTES,
    presignTtlSeconds: e.S3_PRESIGN_TTL_SECONDS,
  }
}

/** BILLING_PROVIDER and what the chosen provider needs; Stripe without its keys stops start-up with the missing names. */
function billingConfig(e: z.infer<typeof envSchema>, sessionSecret: string): BillingConfig {
  if (e.BILLING_PROVIDER === 'test') {
    // Without its own secret, the test provider signs with one derived from the session secret.
    return { provider: 'test', testWebhookSecret: e.BILLING_TEST_WEBHOOK_SECRET ?? createHmac('sha256', sessionSecret).update('billing-test-provider').digest('base64url') }
  }
  if (e.BILLING_PROVIDER === 'none') return { provider: 'none' }
  const { STRIPE_SECRET_KEY: secretKey, STRIPE_WEBHOOK_SECRET: webhookSecret, STRIPE_PRICE_TEAM: team, STRIPE_PRICE_BUSINESS: business } = e
  if (!secretKey || !webhookSecret || !team || !business) {
    const missing = Object.entries({ STRIPE_SECRET_KEY: secretKey, STRIPE_WEBHOOK_SECRET: webhookSecret, STRIPE_PRICE_TEAM: team, STRIPE_PRICE_BUSINESS: business }).filter(([, value]) => !value)
    throw new ConfigError(`Invalid configuration:\n${missing.map(([name]) => `  ${name}: is required with BILLING_PROVIDER=stripe`).join('\n')}`)
  }
  return {
    provider: 'stripe',
    stripe: { secretKey, webhookSecret, prices: { team, business } },
  }
}

/** A secret generated on first start and kept in the data folder, so sessions survive restarts. */
function readOrCreateSecret(dataDir: string): string {
  const file = path.join(dataDir, 'session-secret')
  if (existsSync(file)) return readFileSync(file, 'utf8').trim()
  mkdirSync(dataDir, { recursive: true })
  const secret = randomBytes(48).toString('base64url')
  writeFileSync(file, secret, { mode: 0o600 })
  return secret
}
