import { z } from 'zod'
import { VERSION_MAX } from './edit-conflict'
import { PASSWORD_MAX, PASSWORD_MIN } from './auth'
import { ARCHIVE_AFTER_DAYS_MAX, PURGE_AFTER_DAYS_MAX } from './admin-retention'

/**
 * Administration › Configuration (issue 14, docs/admin/configuration.md): one zod object per
 * category, the one source of truth. The backend validates every save with them and publishes
 * them as JSON Schema (`GET /api/admin/config/schema`, `z.toJSONSchema`), with our keywords on each
 * field: `x-secret` (write-only), `x-applies` (when a change takes effect), `x-unit`,
 * `x-enum-labels`. Every field takes effect somewhere; the description says where.
 *
 * Each schema is exported on its own (the client build turns every export of this folder into
 * HTML constraints; a map of schemas would not survive it): the map is server/domain/config/categories.ts.
 */

const text = (label: string, max: number) =>
  z
    .string({ error: `${label} is text.` })
    .trim()
    .max(max, `${label} has at most ${max} characters.`)
const required = (label: string, max: number, message = `Enter ${label.toLowerCase()}.`) => text(label, max).min(1, message)
const whole = (label: string, min: number, max: number, unit = '') => {
  const message = `${label} is a whole number from ${min.toLocaleString('en-GB')} to ${max.toLocaleString('en-GB')}${unit ? ` ${unit}` : ''}.`
  return z.number({ error: message }).int(message).min(min, message).max(max, message)
}
const onOff = (label: string) => z.boolean({ error: `${label} is on or off.` })

// ---- General ----

/** Time zones this runtime knows (IANA); UTC is always accepted, some runtimes leave it out of the list. */
function isTimeZone(value: string): boolean {
  if (value === 'UTC') return true
  try {
    return Intl.supportedValuesOf('timeZone').includes(value)
  } catch {
    return false
  }
}

function isLocale(value: string): boolean {
  if (!/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(value)) return false
  try {
    return Intl.getCanonicalLocales(value).length === 1
  } catch {
    return false
  }
}

export const GeneralConfigSchema = z.strictObject(
  {
    siteName: required('Site name', 80, 'Enter the name of the site.').default('Site Portal').meta({
      title: 'Site name',
      description: 'Shown to people in mails this organisation sends: the sender name when the mail settings leave it blank.',
      'x-applies': 'immediately',
    }),
    publicUrl: z
      .url({ protocol: /^https?$/, error: 'Enter the address people open the portal at, like https://portal.example.com.' })
      .max(200, 'The address has at most 200 characters.')
      .optional()
      .meta({
        title: 'Public address',
        description: 'The portal’s address in this organisation’s mail templates ({{publicUrl}}). Blank: the server’s own address, as whoever runs the server set it.',
        'x-applies': 'immediately',
      }),
    defaultLocale: required('Language and region', 35, 'Enter a language and region, like en-GB.')
      .refine(isLocale, 'Enter a language and region, like en-GB or de-DE.')
      .default('en-GB')
      .meta({
        title: 'Language and region',
        description: 'How dates and numbers read for people who have not chosen their own (a BCP 47 tag such as en-GB). Also on Settings › Site.',
        'x-applies': 'immediately',
      }),
    defaultTimeZone: required('Time zone', 64, 'Enter a time zone, like Europe/London.')
      .refine(isTimeZone, 'Enter a time zone from the IANA list, like Europe/London or UTC.')
      .default('UTC')
      .meta({
        title: 'Time zone',
        description: 'The organisation’s time zone for due dates and mails. Also on Settings › Site.',
        'x-applies': 'immediately',
      }),
  },
  { error: 'Unknown field.' },
)

// ---- Security ----

/** The longest a session may last, whatever it is (spec §9 keeps 14 days for people, 12 hours for admin sessions). */
export const SESSION_LIFETIME_HOURS_MAX = 14 * 24
export const MFA_POLICIES = ['optional', 'required'] as const

export const SecurityConfigSchema = z.strictObject(
  {
    sessionLifetimeHours: whole('Session lifetime', 1, SESSION_LIFETIME_HOURS_MAX, 'hours').default(SESSION_LIFETIME_HOURS_MAX).meta({
      title: 'Session lifetime',
      description: 'However active, a sign-in to this organisation ends after this long and asks for the password again. Admin sessions never last more than 12 hours.',
      'x-unit': 'hours',
      'x-applies': 'new-sessions',
    }),
    mfaPolicy: z
      .enum(MFA_POLICIES, { error: 'Choose whether a second factor is optional or required.' })
      .default('optional')
      .meta({
        title: 'Two-step sign-in',
        description: 'Required: everyone signing in to this organisation must use an authenticator app code, and sets one up at the next sign-in.',
        'x-enum-labels': ['Optional', 'Required for everyone'],
        'x-applies': 'new-sessions',
      }),
    passwordMinLength: whole('Shortest password', PASSWORD_MIN, 128, 'characters')
      .default(PASSWORD_MIN)
      .meta({
        title: 'Shortest password',
        description: `The fewest characters a new password of a member may have (at least ${PASSWORD_MIN}): when they change it, accept an invitation, or an admin sets it. Passwords already set keep working.`,
        'x-unit': 'characters',
        'x-applies': 'immediately',
      }),
  },
  { error: 'Unknown field.' },
)

// ---- Mail ----

export const MAIL_SECURITY = ['none', 'starttls', 'tls'] as const

export const MailConfigSchema = z.strictObject(
  {
    host: required('SMTP server', 253, 'Enter the SMTP server’s host name, like smtp.example.com.')
      .regex(/^[A-Za-z0-9.:[\]-]+$/, 'Enter a host name or IP address only, like smtp.example.com (no smtp:// and no port).')
      .meta({ title: 'SMTP server', description: 'The host name of the mail server that sends this organisation’s mail.', 'x-applies': 'immediately' }),
    port: whole('Port', 1, 65535).default(587).meta({ title: 'Port', description: 'Usually 587 (STARTTLS) or 465 (TLS); 25 for a local relay.', 'x-applies': 'immediately' }),
    security: z
      .enum(MAIL_SECURITY, { error: 'Choose how the connection is secured.' })
      .default('starttls')
      .meta({
        title: 'Connection security',
        description: 'STARTTLS upgrades a plain connection (port 587); TLS encrypts from the start (port 465). None only for a relay on the same network.',
        'x-enum-labels': ['None (local relay only)', 'STARTTLS', 'TLS'],
        'x-applies': 'immediately',
      }),
    username: text('User name', 254).optional().meta({ title: 'User name', description: 'The account the server signs in with. Blank: no sign-in.', 'x-applies': 'immediately' }),
    password: z.string({ error: 'The password is text.' }).max(PASSWORD_MAX, `The password has at most ${PASSWORD_MAX} characters.`).optional().meta({
      title: 'Password',
      description: 'Stored encrypted and never shown again. Leave blank to keep the saved one.',
      'x-secret': true,
      'x-applies': 'immediately',
    }),
    fromAddress: required('Sender address', 254, 'Enter the address mail is sent from.')
      .regex(/^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/, 'Enter an e-mail address like portal@example.com.')
      .meta({ title: 'Sender address', description: 'The From address of every mail; the server must be allowed to send as it.', 'x-applies': 'immediately' }),
    fromName: text('Sender name', 120)
      .optional()
      .meta({ title: 'Sender name', description: 'The name shown with the sender address. Blank: the site name.', 'x-applies': 'immediately' }),
  },
  { error: 'Unknown field.' },
)

// ---- Storage ----

/** Instance ceiling of one photo (server/domain/photos/photos.ts MAX_FILE_BYTES): an organisation may only go lower. */
export const PHOTO_UPLOAD_MB_MAX = 50
const MIB = 1024 * 1024

export const StorageConfigSchema = z.strictObject(
  {
    quotaMb: whole('Storage quota', 1, 100 * MIB, 'MB')
      .default(10 * 1024)
      .meta({
        title: 'Storage quota',
        description: 'Space for photos, document revisions and support attachments of the organisation. An upload that does not fit is refused; nothing stored is removed.',
        'x-unit': 'MB',
        'x-applies': 'immediately',
      }),
    maxPhotoMb: whole('Largest photo', 1, PHOTO_UPLOAD_MB_MAX, 'MB')
      .default(PHOTO_UPLOAD_MB_MAX)
      .meta({
        title: 'Largest photo',
        description: `The largest single photo people may upload (at most ${PHOTO_UPLOAD_MB_MAX} MB).`,
        'x-unit': 'MB',
        'x-applies': 'immediately',
      }),
  },
  { error: 'Unknown field.' },
)

// ---- Telemetry ----

export const TelemetryConfigSchema = z.strictObject(
  {
    enabled: onOff('Usage telemetry').default(false).meta({
      title: 'Send usage telemetry',
      description: 'Whether people’s browsers in this organisation send usage events (which pages are slow, which fail), shown under Administration › Telemetry.',
      'x-applies': 'immediately',
    }),
    samplingPercent: whole('Sampling', 0, 100, '%').default(100).meta({
      title: 'Sampling',
      description: 'The share of browser sessions that send usage events: less means less traffic, more means a fuller picture.',
      'x-unit': '%',
      'x-applies': 'immediately',
    }),
  },
  { error: 'Unknown field.' },
)

// ---- Identity provider ----

/** OpenID Connect requires https; a provider on the same machine (development) may use plain http. */
function secureOrLoopback(value: string): boolean {
  try {
    const url = new URL(value)
    return url.protocol === 'https:' || ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)
  } catch {
    return false
  }
}

/** Fields an enabled identity provider needs; the secret may already be saved, so the backend checks it apart. */
function providerComplete(value: { enabled?: boolean | undefined; issuer?: string | undefined; clientId?: string | undefined }, ctx: z.RefinementCtx) {
  if (!value.enabled) return
  if (!value.issuer) ctx.addIssue({ code: 'custom', path: ['issuer'], message: 'Enter the issuer before turning sign-in with it on.' })
  if (!value.clientId) ctx.addIssue({ code: 'custom', path: ['clientId'], message: 'Enter the client id before turning sign-in with it on.' })
}

export const IdentityProviderConfigSchema = z
  .strictObject(
    {
      enabled: onOff('Sign-in with the identity provider').default(false).meta({
        title: 'Sign in with this provider',
        description:
          'Lets your people sign in with their company account (OpenID Connect) from the sign-in page. Needs the issuer, client id and client secret, and the Business plan.',
        'x-applies': 'immediately',
      }),
      issuer: z
        .url({ protocol: /^https?$/, error: 'Enter the issuer’s https address, like https://login.example.com/realms/site.' })
        .max(300, 'The issuer has at most 300 characters.')
        .refine(secureOrLoopback, 'Use the issuer’s https address: plain http only for a provider on this machine (localhost).')
        .optional()
        .meta({
          title: 'Issuer',
          description: 'The provider’s issuer address; its discovery document lives at /.well-known/openid-configuration below it.',
          'x-applies': 'immediately',
        }),
      clientId: text('Client id', 200).optional().meta({ title: 'Client id', description: 'The id the provider gave this portal.', 'x-applies': 'immediately' }),
      clientSecret: z.string({ error: 'The client secret is text.' }).max(1000, 'The client secret has at most 1000 characters.').optional().meta({
        title: 'Client secret',
        description: 'Stored encrypted and never shown again. Leave blank to keep the saved one.',
        'x-secret': true,
        'x-applies': 'immediately',
      }),
    },
    { error: 'Unknown field.' },
  )
  .superRefine(providerComplete)

// ---- Realtime ----

export const REALTIME_BACKPLANES = ['memory', 'redis'] as const

/** Read-only: the realtime hub is set up from the environment (REDIS_URL) when the server starts. */
export const RealtimeConfigSchema = z.strictObject(
  {
    backplane: z
      .enum(REALTIME_BACKPLANES)
      .default('memory')
      .meta({
        title: 'Backplane',
        description:
          'How live updates reach people connected to other servers of this portal: shared through Redis when there are several servers, kept in memory when there is one. Whoever runs the server sets this (operations guide); it is shown here, not changed.',
        'x-enum-labels': ['In memory (one instance)', 'Redis (several instances)'],
        'x-applies': 'restart',
        readOnly: true,
      }),
  },
  { error: 'Unknown field.' },
)

// ---- Retention ----

const archiveMessage = `Archive after a whole number of days from 1 to ${ARCHIVE_AFTER_DAYS_MAX}.`
const purgeMessage = `Purge after a whole number of days up to ${PURGE_AFTER_DAYS_MAX}.`

/** The same rules as /admin/retention (app/lib/schemas/admin-retention.ts): both edit one policy. */
export const RetentionConfigSchema = z
  .strictObject(
    {
      enabled: onOff('Retention').default(false).meta({
        title: 'Archive and purge closed items',
        description: 'The daily retention job archives, then deletes, closed items of this organisation. Also on Administration › Retention.',
        'x-applies': 'immediately',
      }),
      archiveAfterDays: z
        .number({ error: archiveMessage })
        .int(archiveMessage)
        .min(1, archiveMessage)
        .max(ARCHIVE_AFTER_DAYS_MAX, archiveMessage)
        .default(365)
        .meta({ title: 'Archive after', description: 'Days after an item closed.', 'x-unit': 'days', 'x-applies': 'immediately' }),
      purgeAfterDays: z
        .number({ error: purgeMessage })
        .int(purgeMessage)
        .min(2, purgeMessage)
        .max(PURGE_AFTER_DAYS_MAX, purgeMessage)
        .default(2555)
        .meta({ title: 'Delete after', description: 'Days after an item closed; more than the archive days.', 'x-unit': 'days', 'x-applies': 'immediately' }),
    },
    { error: 'Unknown field.' },
  )
  .superRefine((value, ctx) => {
    if (value.purgeAfterDays <= value.archiveAfterDays) {
      ctx.addIssue({ code: 'custom', path: ['purgeAfterDays'], message: 'Purge after more days than archive: an item is archived first, then purged.' })
    }
  })

// ---- Calls ----

/** PUT /api/admin/config/{category}: the category's values (secrets blank to keep) and, without If-Match, the version edited. */
export const ConfigPutSchema = z.object({
  values: z.record(z.string(), z.unknown(), { error: 'values is an object of the category’s fields.' }),
  version: z.number({ error: 'version is the version you edited.' }).int('version is a whole number.').min(0, 'version is 0 or more.').max(VERSION_MAX, 'No version is that high.').optional(),
})

export const ConfigRollbackSchema = z.object({
  version: z.number({ error: 'Choose the version to restore.' }).int('version is a whole number.').min(1, 'version is 1 or more.').max(VERSION_MAX, 'No version is that high.'),
})

/** POST /api/admin/config/tests/{kind}: unsaved values override the saved ones (missing secrets come from the saved ones). */
export const ConfigTestSchema = z.object({
  values: z.record(z.string(), z.unknown(), { error: 'values is an object of the category’s fields.' }).optional(),
  toEmail: z
    .string({ error: 'Enter the address to send the test mail to.' })
    .trim()
    .max(254, 'An e-mail address has at most 254 characters.')
    .regex(/^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/, 'Enter an e-mail address like name@example.com.')
    .optional(),
})
