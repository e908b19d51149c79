import { createServer, type ServerResponse } from 'node:http'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { getRequestListener } from '@hono/node-server'
import { createRequestHandler, type ServerBuild } from 'react-router'
import { ConfigError } from '#server/config'
import { DataFolderLockedError } from '#server/db/client'
import { DataFolderInitError } from '#server/db/first-start'
import { RlsBypassError } from '#server/db/tenancy'
import { markDraining } from '#server/http/draining'
import { releaseHeldLeases } from '#server/jobs/lease'
import { attachHubUpgrades, hubRequestListener } from '#server/realtime/start'
import { startCore } from '#server/start'
import { createFrontDoor } from '#server/web/front-door'

// This file is bundled to build/node/index.js; the project root is two folders up.
const rootDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

/**
 * What a stop past its deadline still gets to free leases and close the database before it exits
 * anyway: within the 5 s between the default deadline (25 s) and the 30 s an orchestrator usually
 * waits before SIGKILL.
 */
const LAST_RESORT_MS = 3_000

async function main() {
  // A new PGlite data folder is built by a child process (server/db/first-start.ts), bundled beside this file.
  const initialiseEntry = path.join(path.dirname(fileURLToPath(import.meta.url)), 'initialise-data-folder.js')
  const { config, logger, backend, realtime, database, close } = await startCore(rootDir, process.env, { initialiseEntry })
  const build = (await import(pathToFileURL(path.join(rootDir, 'build/server/index.js')).href)) as ServerBuild
  const handleWeb = createRequestHandler(build, 'production')
  const frontDoor = createFrontDoor({
    config,
    logger,
    backend,
    web: (request, context) => handleWeb(request, context),
    clientDir: path.join(rootDir, 'build/client'),
  })

  const listener = getRequestListener(frontDoor.fetch)
  // Requests in flight (the hub's own are drained by the hub), so a stop can see them finish.
  const inFlight = new Set<ServerResponse>()
  let stopping = false
  const server = createServer(
    hubRequestListener(realtime, (req, res) => {
      inFlight.add(res)
      // While draining, every answer closes its connection: a keep-alive connection must not hold the stop up.
      if (stopping) res.setHeader('connection', 'close')
      res.once('close', () => {
        inFlight.delete(res)
        if (stopping) setImmediate(() => server.closeIdleConnections())
      })
      void listener(req, res)
    }),
  )
  attachHubUpgrades(server, realtime)
  server.listen(config.port, config.host, () => {
    const address = server.address()
    const port = typeof address === 'object' && address ? address.port : config.port
    logger.info({ url: `http://${config.host}:${port}`, publicUrl: config.publicUrl }, 'Site Portal is listening')
  })

  /**
   * Graceful shutdown (docs/operations.md "Stop"): readiness answers 503 from now on, the listener
   * closes (new connections are refused), hub clients get a Close that allows reconnecting, requests
   * in flight (chunk uploads included) finish, then background jobs stop after their pass under way
   * (handing their leases back) and the database closes: exit 0. Past SHUTDOWN_DEADLINE_SECONDS what
   * is left is cut, leases are freed, and the process exits 1.
   */
  let overran = false
  const stop = (signal: string) => {
    if (stopping) return
    stopping = true
    markDraining()
    logger.info({ signal, inFlight: inFlight.size, deadlineSeconds: config.shutdownDeadlineMs / 1000 }, 'draining: refusing new connections, finishing requests in flight')
    for (const res of inFlight) if (!res.headersSent) res.setHeader('connection', 'close')
    const deadline = setTimeout(() => void overrun(), config.shutdownDeadlineMs)
    deadline.unref()
    // Hub connections first: they hold their sockets open, and a Close with allowReconnect lets
    // every client come back by itself once the server (or another instance) answers again.
    void realtime.drain().finally(() => server.closeIdleConnections())
    server.close(() => {
      close()
        .then(() => {
          logger.info('stopped')
          process.exit(overran ? 1 : 0)
        })
        .catch((error: unknown) => {
          logger.error({ err: error }, 'closing the database failed')
          process.exit(1)
        })
    })
    server.closeIdleConnections()
  }
  const overrun = async () => {
    overran = true
    logger.warn(
      { inFlight: inFlight.size },
      `requests or background passes were still running ${config.shutdownDeadlineMs / 1000} s after the stop began (SHUTDOWN_DEADLINE_SECONDS); closing them`,
    )
    server.closeAllConnections()
    setTimeout(() => process.exit(1), LAST_RESORT_MS)
    // Passes still running lose their leases at exit anyway; freeing them now spares the other instances the wait for expiry.
    await releaseHeldLeases()
    await database.close().catch(() => undefined)
    process.exit(1)
  }
  process.on('SIGTERM', () => stop('SIGTERM'))
  process.on('SIGINT', () => stop('SIGINT'))
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof DataFolderLockedError || error instanceof DataFolderInitError || error instanceof RlsBypassError) {
    console.error(error.message)
  } else {
    console.error(error)
  }
  process.exit(1)
})
