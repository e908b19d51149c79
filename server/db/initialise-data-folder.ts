// Child process of the server's first start (server/db/first-start.ts), bundled to
// build/node/initialise-data-folder.js: initdb, migrations and the demo seed in a process that
// exits afterwards, so the memory initdb takes goes with it. It runs under its parent's lock on the
// data folder and builds the database beside its final place, so a folder that was not finished
// (a crash, a kill) is never taken for a database: the next start builds it again.
import { rename, rm } from 'node:fs/promises'
import { lockHolder, openPglite } from '#server/db/client'
import { initialiseRequest, type InitialiseReport } from '#server/db/first-start'
import { seedIfEmpty } from '#server/db/seed'
import { setPasswordHashCost } from '#server/domain/auth/passwords'
import { assertRowLevelSecurity } from '#server/db/tenancy'
import { blobStoreFor } from '#server/storage/blob-stores'

async function main(): Promise<void> {
  const request = initialiseRequest.parse(JSON.parse(process.argv[2] ?? 'null'))
  // Not started by the server that holds the lock: refuse, as a second server would be refused.
  if (!process.send || lockHolder(request.dataDir) !== process.ppid) {
    throw new Error(`The data folder ${request.dataDir} is not locked by this process's parent; start the server instead.`)
  }
  // The server went away (killed while waiting): stop, leaving nothing in the database's place.
  process.on('disconnect', () => process.exit(1))
  if (request.passwordHashCost !== undefined) setPasswordHashCost(request.passwordHashCost)

  const staging = `${request.pgliteDir}.initialising`
  await rm(staging, { recursive: true, force: true })
  const { client, db } = await openPglite(staging, request.migrationsFolder)
  let seeded = false
  try {
    await assertRowLevelSecurity(db)
    if (request.seed) seeded = await seedIfEmpty(db, { store: blobStoreFor({ dataDir: request.dataDir, blobs: request.blobs }) })
  } finally {
    await client.close()
  }
  await rename(staging, request.pgliteDir)
  // maxRSS is in kilobytes.
  const report: InitialiseReport = { seeded, peakRssBytes: process.resourceUsage().maxRSS * 1024 }
  await new Promise<void>((resolve, reject) => process.send?.(report, (error: Error | null) => (error ? reject(error) : resolve())))
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error)
    process.exit(1)
  },
)
