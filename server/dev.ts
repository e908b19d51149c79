import { createServer } from 'node:http'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { getRequestListener } from '@hono/node-server'
import { createRequestHandler, type ServerBuild } from 'react-router'
import { createServer as createViteServer } from 'vite'
import { attachHubUpgrades, hubRequestListener } from '#server/realtime/start'
import { startCore } from '#server/start'
import { createFrontDoor } from '#server/web/front-door'

// Development: the same front door, with Vite in middleware mode serving modules and HMR.
const rootDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const { config, logger, backend, realtime } = await startCore(rootDir, { NODE_ENV: 'development', ...process.env })
const vite = await createViteServer({ server: { middlewareMode: true }, appType: 'custom' })

const frontDoor = createFrontDoor({
  config,
  logger,
  backend,
  clientDir: undefined,
  web: async (request, context) => {
    const build = (await vite.ssrLoadModule('virtual:react-router/server-build')) as ServerBuild
    return createRequestHandler(build, 'development')(request, context)
  },
})
const listener = getRequestListener(frontDoor.fetch)
const server = createServer(hubRequestListener(realtime, (req, res) => vite.middlewares(req, res, () => void listener(req, res))))
attachHubUpgrades(server, realtime)
server.listen(config.port, config.host, () => logger.info(`dev server on http://${config.host}:${config.port}`))
