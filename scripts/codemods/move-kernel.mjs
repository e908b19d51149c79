#!/usr/bin/env node
/**
 * Moves the server's shared kernel out of the feature folders (issue 30, docs/architecture.md
 * "Layers and the import graph") and rewrites every import of the old places.
 *
 *   node scripts/codemods/move-kernel.mjs          # move what is still in its old place, rewrite imports
 *   node scripts/codemods/move-kernel.mjs --check  # only list what it would change; exit 1 if anything
 *
 * Idempotent: a file already moved is left alone, and an import that already names the new place is
 * not touched, so it can run again after merging branches that still import the old paths.
 *
 * FILE_MOVES move a whole file (git mv when tracked). Its own relative imports become aliases
 * (#server/…, ~/…), so they keep pointing at the same files from the new folder.
 * SYMBOL_MOVES say that some names of a module now live elsewhere: an import of only those names
 * gets the new specifier; an import that mixes them with others is split in two.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, posix, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const CHECK = process.argv.includes('--check')

/** [old, new], repository paths without the extension. */
export const FILE_MOVES = [
  // The tenant/request kernel: every feature runs in asMember and records changes.
  ['server/domain/reporting/context', 'server/domain/tenancy/context'],
  ['server/domain/reporting/change-log', 'server/domain/tenancy/change-log'],
  ['server/domain/reporting/user-refs', 'server/domain/tenancy/user-refs'],
  ['server/domain/reporting/paging', 'server/domain/tenancy/paging'],
  ['server/domain/auth/roles', 'server/domain/tenancy/roles'],
  // The upload engine: sessions, chunks, completion and the tenant's storage quota.
  ['server/domain/photos/upload-session', 'server/domain/uploads/session'],
  ['server/domain/photos/upload-complete', 'server/domain/uploads/complete'],
  ['server/domain/photos/chunks', 'server/domain/uploads/chunks'],
  ['server/domain/photos/quota', 'server/domain/uploads/quota'],
  ['server/domain/photos/sniff', 'server/domain/uploads/sniff'],
  // A feature folder below another one keeps what both need.
  ['server/domain/admin/retention', 'server/domain/config/retention'],
  ['server/domain/doc-control/workflow-lock', 'server/domain/documents/review-lock'],
  // The organisation's stored switches (licensing, diagnostics): configuration that licensing reads.
  ['server/domain/settings/organisation', 'server/domain/config/organisation-switches'],
  // Shared by the API client and the server (the sessions list): not part of the browser's client.
  ['app/lib/api/client-os', 'app/lib/client-os'],
]

/** { from, names, to }: these names of `from` are now exported by `to`. */
export const SYMBOL_MOVES = [
  {
    from: 'server/domain/photos/uploads',
    names: ['completeUpload', 'abortUpload', 'getUpload', 'abortSession', 'expireSessions', 'Completed', 'UploadSession', 'UploadPurpose', 'UploadState'],
    to: 'server/domain/uploads/engine',
  },
  { from: 'server/domain/reporting/projects', names: ['isUuid'], to: 'app/lib/schemas/uuid' },
  { from: 'server/domain/reporting/item-view', names: ['isUuid'], to: 'app/lib/schemas/uuid' },
  { from: 'app/components/doc-control/transmittal-paths', names: ['isUuid'], to: 'app/lib/schemas/uuid' },
  { from: 'app/lib/admin/devices', names: ['isUuid'], to: 'app/lib/schemas/uuid' },
  { from: 'server/domain/photos/photos', names: ['photosNotOnItem'], to: 'server/domain/reporting/item-photos' },
  { from: 'server/domain/admin/devices', names: ['endDeviceSessions'], to: 'server/domain/auth/devices' },
  { from: 'server/domain/doc-control/workflow-problems', names: ['underReview'], to: 'server/domain/documents/review-lock' },
  { from: 'server/domain/licensing/seats', names: ['revokeSeat', 'RevokedSeat'], to: 'server/domain/admin/seat-revoke' },
  { from: 'server/domain/licensing/organisations', names: ['switchOrganisation'], to: 'server/domain/auth/organisation-switch' },
  { from: 'server/storage/blob-store', names: ['blobStoreFor'], to: 'server/storage/blob-stores' },
  { from: 'server/domain/doc-control/packaging', names: ['packageView', 'PackageRow'], to: 'server/domain/doc-control/transmittal-views' },
  { from: 'app/islands/upload/file-upload-field', names: ['UploadOutcome'], to: 'app/islands/upload/upload-api' },
  { from: 'server/domain/photos/direct', names: ['bytesOf', 'DirectFile'], to: 'server/domain/uploads/direct' },
  { from: 'server/domain/photos/serving', names: ['ServedBlob'], to: 'server/domain/uploads/served' },
  { from: 'server/domain/mail', names: ['MailTemplateKey', 'MailVariables'], to: 'server/mail/templates/types' },
]

const SCAN = ['server', 'tests', 'bench', 'app']
const EXTENSIONS = ['.ts', '.tsx']
const ALIASES = [
  ['#server/', 'server/'],
  ['#tests/', 'tests/'],
  ['~/', 'app/'],
]

function sourceFiles(dir, out = []) {
  const abs = join(ROOT, dir)
  if (!existsSync(abs)) return out
  for (const name of readdirSync(abs)) {
    if (name === 'node_modules' || name === 'migrations' || name.startsWith('.')) continue
    const rel = posix.join(dir, name)
    if (statSync(join(ROOT, rel)).isDirectory()) sourceFiles(rel, out)
    else if (EXTENSIONS.some((e) => name.endsWith(e)) && !name.endsWith('.d.ts')) out.push(rel)
  }
  return out
}

function stripExtension(path) {
  return path.replace(/\.(tsx?|jsx?|mjs)$/, '')
}

/** The repository path (no extension) an import specifier names from `file`, or undefined for a package. */
function target(file, specifier) {
  for (const [alias, folder] of ALIASES) if (specifier.startsWith(alias)) return stripExtension(folder + specifier.slice(alias.length))
  if (specifier.startsWith('./') || specifier.startsWith('../')) return stripExtension(posix.normalize(posix.join(posix.dirname(file), specifier)))
  return undefined
}

/** The alias specifier of a repository path. */
function aliasOf(path) {
  for (const [alias, folder] of ALIASES) if (path.startsWith(folder)) return alias + path.slice(folder.length)
  return path
}

function fileOf(pathNoExt) {
  return EXTENSIONS.map((e) => pathNoExt + e).find((p) => existsSync(join(ROOT, p)))
}

const changes = []

function isTracked(path) {
  try {
    execFileSync('git', ['ls-files', '--error-unmatch', path], { cwd: ROOT, stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\bvi\.mock\(\s*|\bvi\.importActual(?:<[^>]*>)?\(\s*)(['"])([^'"\n]+)\2/g

/** 1. Files still in their old place move; their relative imports become aliases. */
for (const [from, to] of FILE_MOVES) {
  const old = fileOf(from)
  if (!old) continue
  const ext = old.slice(from.length)
  const dest = to + ext
  if (existsSync(join(ROOT, dest))) {
    console.error(`move-kernel: both ${old} and ${dest} exist; merge them by hand, then run again.`)
    process.exitCode = 1
    continue
  }
  changes.push(`move ${old} -> ${dest}`)
  if (CHECK) continue
  const text = readFileSync(join(ROOT, old), 'utf8').replace(SPECIFIER, (all, lead, quote, spec) => {
    if (!spec.startsWith('.')) return all
    return `${lead}${quote}${aliasOf(target(old, spec))}${quote}`
  })
  mkdirSync(dirname(join(ROOT, dest)), { recursive: true })
  if (isTracked(old)) execFileSync('git', ['mv', old, dest], { cwd: ROOT })
  else renameSync(join(ROOT, old), join(ROOT, dest))
  writeFileSync(join(ROOT, dest), text)
}

/** 2. Imports of old places name the new ones. */
const moved = new Map(FILE_MOVES)

function newPlace(path) {
  return moved.get(path)
}

function specifierFor(file, original, path) {
  // Keep relative specifiers relative inside one top-level folder; anything else by alias.
  if (original.startsWith('.') && path.split('/')[0] === file.split('/')[0]) {
    let rel = posix.relative(posix.dirname(file), path)
    if (!rel.startsWith('.')) rel = `./${rel}`
    return rel
  }
  return aliasOf(path)
}

/** `import { a, type B as C } from 'x'` → its named parts; undefined for any other form. */
const NAMED_IMPORT = /(^|\n)([ \t]*)(import|export)(\s+type)?\s*\{([^}]*)\}\s*from\s*(['"])([^'"\n]+)\6/g

for (const file of SCAN.flatMap((d) => sourceFiles(d))) {
  const before = readFileSync(join(ROOT, file), 'utf8')
  let text = before.replace(NAMED_IMPORT, (all, nl, indent, kw, typeAll, list, quote, spec) => {
    const path = target(file, spec)
    if (!path) return all
    const rule = SYMBOL_MOVES.find((m) => m.from === path)
    if (!rule) return all
    const parts = list
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean)
    const nameOf = (p) => p.replace(/^type\s+/, '').split(/\s+as\s+/)[0].trim()
    const movedParts = parts.filter((p) => rule.names.includes(nameOf(p)))
    if (movedParts.length === 0) return all
    const stay = parts.filter((p) => !rule.names.includes(nameOf(p)))
    const statement = (names, s) => `${nl}${indent}${kw}${typeAll ?? ''} { ${names.join(', ')} } from ${quote}${s}${quote}`
    const moveTo = specifierFor(file, spec, rule.to)
    // The names now live in this very file: its import of them goes.
    if (rule.to === stripExtension(file)) return stay.length === 0 ? '' : statement(stay, spec)
    if (stay.length === 0) return statement(movedParts, moveTo)
    return statement(stay, spec) + statement(movedParts, moveTo).replace(/^/, nl ? '' : '\n')
  })
  text = text.replace(SPECIFIER, (all, lead, quote, spec) => {
    const path = target(file, spec)
    if (!path) return all
    const to = newPlace(path)
    if (!to) return all
    const hadExtension = /\.(tsx?|jsx?)$/.exec(spec)?.[0] ?? ''
    return `${lead}${quote}${specifierFor(file, spec, to)}${hadExtension}${quote}`
  })
  if (text !== before) {
    changes.push(`rewrite ${file}`)
    if (!CHECK) writeFileSync(join(ROOT, file), text)
  }
}

/** 3. Docs that name an old file name the new one. */
for (const doc of ['docs', 'README.md']) {
  const abs = join(ROOT, doc)
  if (!existsSync(abs)) continue
  const files = statSync(abs).isDirectory() ? readdirSync(abs, { recursive: true }).filter((n) => String(n).endsWith('.md')).map((n) => posix.join(doc, String(n))) : [doc]
  for (const file of files) {
    const before = readFileSync(join(ROOT, file), 'utf8')
    let text = before
    for (const [from, to] of FILE_MOVES) text = text.split(`${from}.ts`).join(`${to}.ts`)
    if (text !== before) {
      changes.push(`rewrite ${file}`)
      if (!CHECK) writeFileSync(join(ROOT, file), text)
    }
  }
}

for (const c of changes) console.log(c)
console.log(changes.length === 0 ? 'move-kernel: nothing to do.' : `move-kernel: ${changes.length} change(s)${CHECK ? ' to make' : ''}.`)
if (CHECK && changes.length > 0) process.exitCode = 1
