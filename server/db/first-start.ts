import { fork } from 'node:child_process'
import { z } from 'zod'
import type { BlobsConfig } from '#server/config'
import type { Logger } from '#server/http/logger'

/**
 * The first start on an empty data folder, outside the server's process. PGlite's initdb grows the
 * WebAssembly memory to ~850 MB and never gives it back, so a server that ran initdb itself kept
 * that for good; the same folder opened afresh costs under half. The server takes the data
 * folder's lock, forks `initialise-data-folder` (initdb, migrations, demo seed), waits for it to
 * exit, and then opens the finished folder. docs/performance.md "Server memory" has the figures.
 */

export const initialiseRequest = z.object({
  dataDir: z.string().min(1),
  pgliteDir: z.string().min(1),
  migrationsFolder: z.string().min(1),
  seed: z.boolean(),
  /** config.passwordHashCost: the demo seed hashes its accounts' passwords at the server's cost (unset: the default). */
  passwordHashCost: z.number().int().optional(),
  /** The server's blob store (config.blobs), where the demo seed's photos go: the data folder or a bucket. */
  blobs: z.custom<BlobsConfig>((value) => typeof value === 'object' && value !== null && 'store' in value),
})
export type InitialiseRequest = z.infer<typeof initialiseRequest>

export const initialiseReport = z.object({ seeded: z.boolean(), peakRssBytes: z.number() })
export type InitialiseReport = z.infer<typeof initialiseReport>

export class DataFolderInitError extends Error {}

export type ChildInitOptions = {
  /** The bundled child entry, build/node/initialise-data-folder.js. */
  entry: string
  dataDir: string
  migrationsFolder: string
  seed: boolean
  passwordHashCost?: number
  blobs: BlobsConfig
  logger: Logger
}

/** An `initialise` for openDatabase that builds the PGlite folder in a child process. */
export function initialiseInChildProcess(options: ChildInitOptions): (pgliteDir: string) => Promise<void> {
  return async (pgliteDir) => {
    const started = performance.now()
    const request: InitialiseRequest = { dataDir: options.dataDir, pgliteDir, migrationsFolder: options.migrationsFolder, seed: options.seed, passwordHashCost: options.passwordHashCost, blobs: options.blobs }
    options.logger.info({ dataDir: options.dataDir }, 'new data folder: initialising it in a child process')
    const report = await runChild(options.entry, request)
    options.logger.info(
      { ms: Math.round(performance.now() - started), childPeakRssMb: Math.round(report.peakRssBytes / 1024 / 1024) },
      'data folder initialised',
    )
    if (report.seeded) options.logger.info('seeded the demo tenants and accounts')
  }
}

function runChild(entry: string, request: InitialiseRequest): Promise<InitialiseReport> {
  return new Promise((resolve, reject) => {
    // No inherited --inspect or loader flags: the child is plain node running built JavaScript.
    const child = fork(entry, [JSON.stringify(request)], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    let report: InitialiseReport | undefined
    child.on('message', (message) => {
      const parsed = initialiseReport.safeParse(message)
      if (parsed.success) report = parsed.data
    })
    child.once('error', reject)
    child.once('exit', (code, signal) => {
      if (code === 0 && report) resolve(report)
      else reject(new DataFolderInitError(`Initialising the data folder ${request.dataDir} failed (child process ${signal ?? `exit code ${code}`}); see its output above.`))
    })
  })
}
