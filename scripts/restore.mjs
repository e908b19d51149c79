// Restores a backup made by scripts/backup.mjs (docs/operations.md "Backups"):
//
//   npm run restore -- --from site-portal-2026-01-31.tar.gz
//
// Into a fresh place only, so a restore never mixes with live data: embedded → DATA_DIR must not
// exist or be empty; PostgreSQL → DATABASE_URL names an empty database (createdb it first), and
// DATA_DIR holds no served files yet. Every file is checked against the manifest's size and
// SHA-256 before anything is restored. Then start the server on it as usual.
import { mkdir, mkdtemp, readdir, readFile, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { connection, DUMP, exists, FORMAT, MANIFEST, run, runScript, settingsFrom, sha256Of, UsageError } from './backup.mjs'

async function main() {
  const { values } = parseArgs({ options: { from: { type: 'string' }, help: { type: 'boolean' } } })
  if (values.help || !values.from) {
    console.log('npm run restore -- --from <backup.tar.gz>   (DATA_DIR and DATABASE_URL name where to restore; docs/operations.md "Backups")')
    if (!values.from && !values.help) process.exitCode = 1
    return
  }
  const from = path.resolve(values.from)
  const settings = settingsFrom(process.env)
  const manifest = await readManifest(from)
  if (manifest.kind === 'embedded') {
    if (settings.databaseUrl) throw new UsageError('This backup is of the embedded database: unset DATABASE_URL and set DATA_DIR to a new folder.')
    await restoreEmbedded(from, manifest, settings.dataDir)
  } else {
    if (!settings.databaseUrl) throw new UsageError('This backup is of a PostgreSQL database: set DATABASE_URL to an empty database (createdb site_portal_restored) to restore into.')
    await restorePostgres(from, manifest, settings)
  }
  console.log(`restored ${path.basename(from)} (${manifest.kind}, made ${manifest.createdAtUtc}, ${manifest.files.length} files checked)`)
}

async function readManifest(from) {
  if (!(await exists(from))) throw new UsageError(`${from} does not exist.`)
  let manifest
  try {
    manifest = JSON.parse(await run('tar', ['-xzOf', from, MANIFEST]))
  } catch (error) {
    throw new UsageError(`${from} is not a Site Portal backup (no readable ${MANIFEST}): ${error.message}`)
  }
  if (manifest.format !== FORMAT) throw new UsageError(`${from} is a backup of format ${manifest.format}; this script reads ${FORMAT}.`)
  return manifest
}

/** Extracted beside the target, checked, then renamed into place: a failed restore leaves no half folder. */
async function restoreEmbedded(from, manifest, dataDir) {
  if ((await exists(dataDir)) && (await readdir(dataDir)).length > 0) {
    throw new UsageError(`${dataDir} is not empty. Restore into a new folder (set DATA_DIR), or move this one aside first.`)
  }
  await mkdir(path.dirname(dataDir), { recursive: true })
  const staging = await extract(from, manifest, path.dirname(dataDir))
  try {
    await rm(path.join(staging, MANIFEST))
    if (await exists(dataDir)) await rmdir(dataDir)
    await rename(staging, dataDir)
  } finally {
    await rm(staging, { recursive: true, force: true })
  }
}

async function restorePostgres(from, manifest, { databaseUrl, dataDir }) {
  await requireEmptyDatabase(databaseUrl)
  const objects = path.join(dataDir, 'blobs', 'objects')
  if ((await exists(objects)) && (await readdir(objects)).length > 0) {
    throw new UsageError(`${objects} already holds files. Restore into a new DATA_DIR, or move its blobs folder aside first.`)
  }
  const secret = path.join(dataDir, 'session-secret')
  await mkdir(dataDir, { recursive: true })
  const staging = await extract(from, manifest, dataDir)
  try {
    const restoredSecret = path.join(staging, 'session-secret')
    if ((await exists(restoredSecret)) && (await exists(secret)) && (await readFile(secret, 'utf8')) !== (await readFile(restoredSecret, 'utf8'))) {
      throw new UsageError(
        `${secret} differs from the backup's. Sealed SMTP and identity-provider secrets and CSRF tokens need the backup's: move ${secret} aside and run the restore again.`,
      )
    }
    const { url, env } = connection(databaseUrl)
    // Comments on extensions need their owner (a superuser): skipped, so a database owner can restore.
    const contents = await run('pg_restore', ['--list', path.join(staging, DUMP)])
    const list = path.join(staging, 'restore.list')
    await writeFile(list, contents.split('\n').filter((line) => !/ COMMENT - EXTENSION /.test(line)).join('\n'))
    await run('pg_restore', ['--no-owner', '--exit-on-error', '--single-transaction', `--use-list=${list}`, `--dbname=${url}`, path.join(staging, DUMP)], { env })
    if (await exists(path.join(staging, 'blobs', 'objects'))) {
      await mkdir(path.dirname(objects), { recursive: true })
      if (await exists(objects)) await rmdir(objects)
      await rename(path.join(staging, 'blobs', 'objects'), objects)
    }
    if ((await exists(restoredSecret)) && !(await exists(secret))) await rename(restoredSecret, secret)
  } finally {
    await rm(staging, { recursive: true, force: true })
  }
}

/** A database without tables of its own: restoring over a live one would mix two histories. */
async function requireEmptyDatabase(databaseUrl) {
  const client = new pg.Client({ connectionString: databaseUrl })
  try {
    await client.connect()
  } catch (error) {
    throw new UsageError(`Cannot connect to DATABASE_URL: ${error.message}. Create the database first (createdb …) and check the URL.`)
  }
  try {
    const { rows } = await client.query("select count(*)::int as tables from pg_tables where schemaname not in ('pg_catalog', 'information_schema')")
    if (rows[0].tables > 0) throw new UsageError(`The database of DATABASE_URL already has ${rows[0].tables} tables. Restore into an empty database (createdb …).`)
  } finally {
    await client.end()
  }
}

/** Extracts the archive into a new folder under `parent` and checks every file against the manifest. */
async function extract(from, manifest, parent) {
  const staging = await mkdtemp(path.join(parent, '.site-portal-restore-'))
  try {
    await run('tar', ['-xzf', from, '-C', staging])
    for (const file of manifest.files) {
      const full = path.join(staging, file.path)
      const info = await stat(full).catch(() => undefined)
      if (!info) throw new UsageError(`The backup is damaged: ${file.path} is missing.`)
      if (info.size !== file.size || (await sha256Of(full)) !== file.sha256) throw new UsageError(`The backup is damaged: ${file.path} differs from its manifest entry.`)
    }
    return staging
  } catch (error) {
    await rm(staging, { recursive: true, force: true })
    throw error
  }
}

runScript(import.meta.url, main)
