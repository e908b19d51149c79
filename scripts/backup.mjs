// Backs up Site Portal's data into one .tar.gz (docs/operations.md "Backups"):
//
//   npm run backup -- --out site-portal-2026-01-31.tar.gz
//
// Embedded (no DATABASE_URL): the whole data folder (PGlite's files, blobs/, session-secret) while
// the server is stopped: PGlite is one process that holds its files open, so a copy taken while it
// runs may not open. The script refuses while the server holds the folder's lock, and holds the
// lock itself while it copies, so a server started meanwhile refuses to start.
// PostgreSQL (DATABASE_URL): `pg_dump --format=custom` while the server runs, then the served
// files of DATA_DIR/blobs (after the dump, so every photo row the dump holds has its file).
// With BLOB_STORE=s3 the files are in the bucket, not in the archive: back the bucket up with its
// own tools (versioning, replication, `aws s3 sync`).
// Every archive starts with site-portal-backup.json: what it holds, with each file's size and
// SHA-256, which scripts/restore.mjs checks before it restores anything.
// Plain Node (no build, no dev dependency); pg_dump and tar come from the system.
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { createReadStream, readFileSync } from 'node:fs'
import { mkdtemp, open, readdir, readFile, rename, rm, stat, unlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'

export const MANIFEST = 'site-portal-backup.json'
export const FORMAT = 'site-portal-backup/1'
export const DUMP = 'database.dump'
/** server/db/client.ts LOCK_FILE: the pid of the process that has the data folder open. */
export const LOCK_FILE = 'pglite.lock'
/** What of DATA_DIR a PostgreSQL set-up keeps on disk: the served files (not uploads in progress) and the generated secret. */
const POSTGRES_FILES = ['blobs/objects', 'session-secret']

const rootDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/** The part of the server's configuration (server/config.ts) a backup or restore needs. */
export function settingsFrom(env) {
  return {
    dataDir: path.resolve(env.DATA_DIR || './data'),
    databaseUrl: env.DATABASE_URL || undefined,
    bucket: env.BLOB_STORE === 's3' ? `s3://${env.S3_BUCKET ?? '(S3_BUCKET)'}${env.S3_KEY_PREFIX ? `/${env.S3_KEY_PREFIX}` : ''}` : undefined,
  }
}

/** A failure the operator can act on: printed without a stack. */
export class UsageError extends Error {}

async function main() {
  const { values } = parseArgs({ options: { out: { type: 'string' }, help: { type: 'boolean' } } })
  if (values.help) {
    console.log('npm run backup -- --out <file.tar.gz>   (DATA_DIR, DATABASE_URL and BLOB_STORE as for the server; docs/operations.md "Backups")')
    return
  }
  const settings = settingsFrom(process.env)
  const out = path.resolve(values.out ?? `site-portal-backup-${new Date().toISOString().slice(0, 19).replaceAll(':', '')}Z.tar.gz`)
  const manifest = settings.databaseUrl ? await backupPostgres(settings, out) : await backupEmbedded(settings, out)
  const bytes = manifest.files.reduce((sum, file) => sum + file.size, 0)
  console.log(`backup written: ${out} (${manifest.kind}, ${manifest.files.length} files, ${(bytes / 1024 / 1024).toFixed(1)} MB before compression)`)
  if (settings.bucket) {
    console.log(
      `note: BLOB_STORE=s3: photos and documents are in ${settings.bucket}, not in this archive. ` +
        'Keep versioning (or replication) on for the bucket, or copy it now with `aws s3 sync` (docs/operations.md "Backups").',
    )
  }
}

/** The data folder as it is, while no server has it open. */
async function backupEmbedded(settings, out) {
  const { dataDir } = settings
  if (!(await exists(path.join(dataDir, 'pglite', 'PG_VERSION')))) {
    throw new UsageError(`${dataDir} holds no embedded database (no pglite/PG_VERSION). Set DATA_DIR to the server's data folder, or DATABASE_URL to back up PostgreSQL.`)
  }
  const release = await lockDataFolder(dataDir)
  try {
    const entries = (await readdir(dataDir)).filter((name) => name !== LOCK_FILE).sort()
    return await writeArchive(out, { kind: 'embedded' }, [{ dir: dataDir, ...(await describe(dataDir, entries)) }])
  } finally {
    await release()
  }
}

/** pg_dump first, then the files: a photo stored after the dump is not in the archive, but every one the dump names is. */
async function backupPostgres(settings, out) {
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'site-portal-backup-'))
  try {
    const { url, env } = connection(settings.databaseUrl)
    await run('pg_dump', ['--format=custom', `--file=${path.join(scratch, DUMP)}`, `--dbname=${url}`], { env })
    const present = []
    for (const name of POSTGRES_FILES) if (await exists(path.join(settings.dataDir, name))) present.push(name)
    return await writeArchive(out, { kind: 'postgres' }, [
      { dir: scratch, ...(await describe(scratch, [DUMP])) },
      { dir: settings.dataDir, ...(await describe(settings.dataDir, present)) },
    ])
  } finally {
    await rm(scratch, { recursive: true, force: true })
  }
}

/**
 * The database URL without its password (it would show in the process list) and the environment
 * that passes the password to pg_dump, pg_restore and psql instead.
 */
export function connection(databaseUrl) {
  const parsed = new URL(databaseUrl)
  const password = decodeURIComponent(parsed.password)
  parsed.password = ''
  return { url: parsed.toString(), env: { ...process.env, ...(password && { PGPASSWORD: password }) } }
}

/**
 * Writes the manifest and every listed folder and file into `out` (via a temporary name, so a
 * failed backup never leaves a file that looks whole). `sources`: a folder each, with the folders
 * and files (relative paths) to take from it, in archive order after the manifest.
 */
async function writeArchive(out, header, sources) {
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'site-portal-manifest-'))
  const partial = `${out}.partial`
  try {
    const manifest = {
      format: FORMAT,
      ...header,
      createdAtUtc: new Date().toISOString(),
      portalVersion: JSON.parse(readFileSync(path.join(rootDir, 'package.json'), 'utf8')).version,
      folders: sources.flatMap((source) => source.folders),
      files: sources.flatMap((source) => source.files),
    }
    await writeFile(path.join(scratch, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`)
    // Named one by one, without recursion: the archive holds exactly what the manifest lists, and
    // empty folders too (PostgreSQL's data folder needs its empty pg_* folders).
    const args = ['-czf', partial, '--no-recursion', '-C', scratch, MANIFEST]
    for (const source of sources) {
      const names = [...source.folders, ...source.files.map((file) => file.path)]
      if (names.length === 0) continue
      const list = path.join(scratch, `files-${args.length}.txt`)
      await writeFile(list, names.join('\n') + '\n')
      args.push('-C', source.dir, '-T', list)
    }
    await run('tar', args)
    await rename(partial, out)
    return manifest
  } finally {
    await rm(partial, { force: true })
    await rm(scratch, { recursive: true, force: true })
  }
}

/** The folders and files under the entries of `dir` (files or folders), each file with its size and SHA-256. */
export async function describe(dir, entries) {
  const folders = []
  const files = []
  async function walk(relative) {
    const full = path.join(dir, relative)
    const info = await stat(full)
    if (info.isDirectory()) {
      folders.push(relative)
      for (const name of (await readdir(full)).sort()) await walk(path.posix.join(relative, name))
    } else if (info.isFile()) {
      files.push({ path: relative, size: info.size, sha256: await sha256Of(full) })
    }
  }
  for (const entry of entries) await walk(entry)
  return { folders, files }
}

export async function sha256Of(file) {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(file)) hash.update(chunk)
  return hash.digest('hex')
}

/**
 * Takes the data folder's lock as the server does (server/db/client.ts): refused while a running
 * process holds it; a lock left by a process that no longer runs is taken over.
 */
async function lockDataFolder(dataDir) {
  const file = path.join(dataDir, LOCK_FILE)
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(file, 'wx')
      await handle.writeFile(String(process.pid))
      await handle.close()
      return () => unlink(file).catch(() => undefined)
    } catch (error) {
      if (error.code !== 'EEXIST') throw error
      const pid = Number(await readFile(file, 'utf8').catch(() => ''))
      if (pid && isRunning(pid)) {
        throw new UsageError(
          `The server (pid ${pid}) has ${dataDir} open. Stop it first (e.g. systemctl stop site-portal), ` +
            'run the backup, then start it again: a copy of an open PGlite folder may not open.',
        )
      }
      await unlink(file).catch(() => undefined)
    }
  }
  throw new UsageError(`Could not lock ${dataDir}.`)
}

function isRunning(pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return error.code === 'EPERM'
  }
}

export async function exists(file) {
  return stat(file).then(
    () => true,
    () => false,
  )
}

/** Runs a system tool; fails with its own words (stderr) or with how to install it. */
export function run(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    child.stderr.on('data', (chunk) => (stderr += chunk))
    child.on('error', (error) => {
      const hint = command.startsWith('pg_') ? ' Install the PostgreSQL client tools of the server’s major version or newer (Debian: apt install postgresql-client).' : ''
      reject(error.code === 'ENOENT' ? new UsageError(`${command} is not installed.${hint}`) : error)
    })
    child.on('close', (code) => {
      if (code === 0) resolve(stdout)
      else reject(new UsageError(`${command} failed (exit ${code}):\n${stderr.trim()}`))
    })
  })
}

/** Runs `main` of a script, printing an operator's error without a stack. */
export function runScript(scriptUrl, main) {
  if (process.argv[1] && pathToFileURL(path.resolve(process.argv[1])).href !== scriptUrl) return
  main().catch((error) => {
    console.error(error instanceof UsageError ? error.message : error)
    process.exitCode = 1
  })
}

runScript(import.meta.url, main)
