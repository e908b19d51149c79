import path from 'node:path'
import { createBackend, type Backend } from '#server/api/app'
import { settleAfterResponse } from '#server/api/auth/after-response'
import { loadConfig, type Config } from '#server/config'
import { openDatabase, type DatabaseHandle } from '#server/db/client'
import { initialiseInChildProcess } from '#server/db/first-start'
import { seedIfEmpty } from '#server/db/seed'
import { PASSWORD_HASH_COST, setPasswordHashCost } from '#server/domain/auth/passwords'
import { reportExposedDemoAccounts } from '#server/domain/admin/demo-accounts'
import { assertRowLevelSecurity } from '#server/db/tenancy'
import { createLogger, type Logger } from '#server/http/logger'
import { startMetricsListener } from '#server/http/metrics'
import { startTracing } from '#server/http/tracing'
import { LogRing } from '#server/domain/observability/log-ring'
import { startMailDelivery } from '#server/jobs/mail-delivery'
import { createMailRouter, instanceMailRoute } from '#server/mail/routing'
import { startChangeLogCompaction } from '#server/jobs/change-log-compaction'
import { startDiagnostics } from '#server/jobs/diagnostics'
import { registerHubProbe } from '#server/domain/observability/diagnostics-checks'
import { startPgliteVacuum } from '#server/jobs/pglite-vacuum'
import { startRetention } from '#server/jobs/retention'
import { startTelemetryRetention } from '#server/jobs/telemetry-retention'
import { startUploadPurge } from '#server/jobs/upload-purge'
import { startTransmittalPackaging } from '#server/jobs/transmittal-packaging'
import { startExportJobs } from '#server/jobs/export-jobs'
import { startWorkflowReminders } from '#server/jobs/workflow-reminders'
import { startNotificationDigest } from '#server/jobs/notification-digest'
import { startRealtime, type Realtime } from '#server/realtime/start'
import { blobStoreFor } from '#server/storage/blob-stores'

export type Started = {
  config: Config
  logger: Logger
  /** The last lines the logger wrote, for the admin logs tail and its live follow. */
  logRing: LogRing
  database: DatabaseHandle
  backend: Backend
  /** The realtime hub; the entries attach it to their HTTP server. */
  realtime: Realtime
  /** Drains the hub, stops background jobs and closes the database. */
  close(): Promise<void>
}

export type StartOptions = {
  /**
   * The built child entry that initialises a new PGlite data folder (build/node/initialise-data-folder.js).
   * Without it (development) the server runs initdb itself and keeps the memory it took.
   */
  initialiseEntry?: string | undefined
}

/**
 * The outbox worker always runs (an organisation may have its own SMTP server); start-up says
 * plainly where the instance's mail goes (docs/admin/mail.md).
 */
function startMail(config: Config, database: DatabaseHandle, logger: Logger) {
  const instance = { smtpUrl: config.smtpUrl, mailFrom: config.mailFrom, mailFileDir: config.mailFileDir }
  const route = instanceMailRoute(instance)
  if (route?.key === 'instance') logger.info({ transport: route.description, from: config.mailFrom }, `mail: sent through ${route.description} (SMTP_URL)`)
  else if (route) logger.info({ transport: route.description }, `mail: written as .eml files to ${config.mailFileDir} (MAIL_FILE_DIR, for development), not sent`)
  else {
    logger.warn(
      'mail: no transport configured, so mail stays queued in the outbox (Administration › Mail outbox) unless an organisation saved its own SMTP settings. Set SMTP_URL (smtp://user:password@host:587) and MAIL_FROM to send it, or MAIL_FILE_DIR to write it to files in development.',
    )
  }
  return startMailDelivery({ db: database.db, logger, router: () => createMailRouter({ db: database.db, sessionSecret: config.sessionSecret, instance }) })
}

/** Everything both entries (production and development) share: configuration, database, backend. */
export async function startCore(rootDir: string, env: Record<string, string | undefined> = process.env, options: StartOptions = {}): Promise<Started> {
  const config = loadConfig(env)
  // Every line also goes to the ring (the admin logs tail) and, with LOG_FILE, to that file.
  const logRing = new LogRing()
  const logger = createLogger(config.logLevel, undefined, { ring: logRing, file: config.logFile })
  // Each line names the part of the server that wrote it (the logs tail filters by it).
  const jobs = logger.child({ unit: 'jobs' })
  // Before the demo seed hashes its passwords (createBackend sets it again, for backends made alone).
  setPasswordHashCost(config.passwordHashCost)
  if (config.passwordHashCost < PASSWORD_HASH_COST.default) {
    logger.warn(
      `PASSWORD_HASH_COST is ${config.passwordHashCost}, below the default ${PASSWORD_HASH_COST.default}: passwords set from now on are quicker to guess from a stolen database. It is meant for test runs.`,
    )
  }
  const migrationsFolder = path.join(rootDir, 'server/db/migrations')
  const database = await openDatabase({
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl,
    migrationsFolder,
    onIdleError: (error) => logger.warn({ err: error }, 'an idle database connection failed'),
    initialise: options.initialiseEntry
      ? initialiseInChildProcess({ entry: options.initialiseEntry, dataDir: config.dataDir, migrationsFolder, seed: config.seed, passwordHashCost: config.passwordHashCost, blobs: config.blobs, logger })
      : undefined,
  })
  try {
    await assertRowLevelSecurity(database.db)
    if (config.seed && (await seedIfEmpty(database.db, { store: blobStoreFor(config) }))) logger.info('seeded the demo tenants and accounts')
    await reportExposedDemoAccounts(database.db, config.publicUrl, logger)
  } catch (error) {
    await database.close()
    throw error
  }
  const backend = createBackend({ config, db: database.db, logger: logger.child({ unit: 'web' }), now: () => new Date(), logRing })
  logger.info({ driver: database.driver, dataDir: config.dataDir }, 'database ready')
  const mail = startMail(config, database, logger.child({ unit: 'mail' }))
  const uploadPurge = startUploadPurge({ db: database.db, store: blobStoreFor(config), logger: jobs })
  const packaging = startTransmittalPackaging({ db: database.db, store: blobStoreFor(config), logger: jobs })
  const exportJobs = startExportJobs({ db: database.db, store: blobStoreFor(config), logger: jobs, publicUrl: config.publicUrl, linkHours: config.exportJobs.linkHours, pauseMs: config.exportJobs.pauseMs })
  const vacuum = database.driver === 'pglite' ? startPgliteVacuum({ db: database.db, logger: jobs }) : undefined
  const compaction = startChangeLogCompaction({ db: database.db, logger: jobs })
  const workflowReminders = startWorkflowReminders({ db: database.db, logger: jobs, links: { publicUrl: config.publicUrl } })
  const digest = startNotificationDigest({ db: database.db, logger: jobs, links: { publicUrl: config.publicUrl } })
  const retention = startRetention({ db: database.db, logger: jobs })
  const telemetryRetention = startTelemetryRetention({ db: database.db, logger: jobs })
  const realtime = await startRealtime({ config, db: database.db, logger: logger.child({ unit: 'hub' }), now: () => new Date(), logRing })
  registerHubProbe(database.db, { stats: () => realtime.hub.stats(), backplane: config.redisUrl ? 'redis' : 'memory' })
  backend.metrics.observe({ poolStats: database.poolStats, hub: realtime.hub })
  const metricsPort = config.metrics.port
  const metricsListener = metricsPort === undefined ? undefined : await startMetricsListener({ ...config.metrics, port: metricsPort, metrics: backend.metrics, logger })
  // Off unless the OTEL_* variables ask for it (server/http/tracing.ts).
  const tracing = await startTracing(env, logger)
  const diagnostics = startDiagnostics({ db: database.db, config, store: blobStoreFor(config), logger: jobs })
  return {
    config,
    logger,
    logRing,
    database,
    backend,
    realtime,
    async close() {
      await metricsListener?.close()
      await realtime.close()
      // Registration and reset work that answered before it ran (server/api/auth/after-response.ts).
      await settleAfterResponse(database.db)
      await mail.stop()
      await uploadPurge.stop()
      await packaging.stop()
      await exportJobs.stop()
      await vacuum?.stop()
      await compaction.stop()
      await workflowReminders.stop()
      await digest.stop()
      await retention.stop()
      await telemetryRetention.stop()
      await diagnostics?.stop()
      await database.close()
      await tracing?.shutdown()
    },
  }
}
