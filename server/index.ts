import { createServer } from 'node:http'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { getRequestListener } from '@hono/node-server'
import { createRequestHandler, type ServerBuild } from 'react-router'
import { ConfigError } from '#server/config'
import { DataFolderLockedError } from '#server/db/client'
import { DataFolderInitError } from '#server/db/first-start'
import { RlsBypassError } from '#server/db/tenancy'
import { attachHubUpgrades, hubRequestListener } from '#server/realtime/start'
import { startCore } from '#server/start'
import { createFrontDoor } from '#server/web/front-door'

// This file is bundled to build/node/index.js; the project root is two folders up.
const rootDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

async function main() {
  // A new PGlite data folder is built by a child process (server/db/first-start.ts), bundled beside this file.
  const initialiseEntry = path.join(path.dirname(fileURLToPath(import.meta.url)), 'initialise-data-folder.js')
  const { config, logger, backend, realtime, close } = await startCore(rootDir, process.env, { initialiseEntry })
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
  const server = createServer(hubRequestListener(realtime, (req, res) => void listener(req, res)))
  attachHubUpgrades(server, realtime)
  server.listen(config.port, config.host, () => {
    const address = server.address()
    const port = typeof address === 'object' && address ? address.port : config.port
    logger.info({ url: `http://${config.host}:${port}`, publicUrl: config.publicUrl }, 'Site Portal is listening')
  })

  // Graceful shutdown: stop accepting, let in-flight requests finish, then close the database.
  let stopping = false
  const stop = (signal: string) => {
    if (stopping) return
    stopping = true
    logger.info({ signal }, 'shutting down')
    const force = setTimeout(() => {
      logger.warn('in-flight requests did not finish in 10 s; closing anyway')
      server.closeAllConnections()
    }, 10_000)
    force.unref()
    // Hub connections first: they hold their sockets open, and a Close with allowReconnect lets
    // every client come back by itself once the server (or another instance) answers again.
    void realtime.drain().finally(() => server.closeIdleConnections())
    server.close(() => {
      close()
        .then(() => {
          logger.info('stopped')
          process.exit(0)
        })
        .catch((error: unknown) => {
          logger.error({ err: error }, 'closing the database failed')
          process.exit(1)
        })
    })
    server.closeIdleConnections()
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
