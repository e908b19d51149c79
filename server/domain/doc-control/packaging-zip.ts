import { createHash } from 'node:crypto'
import { Transform, type Readable } from 'node:stream'
import { COVER_SHEET_PDF_NAME, coverSheetPdf } from './cover-sheet-pdf'
import type { BlobStore } from '#server/storage/blob-store'
import { PURPOSE_LABELS } from '~/lib/schemas/sets'
import type { IssuePurpose } from '~/lib/doc-control/types'
import { PACKAGE_PROGRESS_BYTES, type PackageContents, type PackageFile } from './packaging'

/**
 * The ZIP of a transmittal (docs/doc-control.md "Packaging"), written as a stream: the cover sheet
 * first (as HTML and as PDF), then each revision's file read from the blob store and stored as it is (no compression:
 * drawings and models are compressed already, and store mode costs no CPU), the ZIP going into the
 * blob store as it is made. yazl writes zip64 records when a package passes 4 GiB. Backpressure runs
 * from the store's write back to each file's read, so memory holds a few chunks whatever the size.
 * Each file is checked against its recorded size and SHA-256 on the way through.
 */

export const COVER_SHEET_NAME = '00-transmittal.html'

export type ZipProgress = { filesDone: number; bytesDone: number }

/** A file that could not go into the package: its message names the document, for the person who asked. */
export class PackageFileError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'PackageFileError'
  }
}

function readProblem(file: PackageFile, error: unknown): PackageFileError {
  const missing = (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT'
  return new PackageFileError(missing ? `The file of ${file.label} is missing from storage.` : `The file of ${file.label} could not be read.`, { cause: error })
}

/**
 * Streams the package into `store` under `key`. `onProgress` runs after every file and every
 * PACKAGE_PROGRESS_BYTES, and the stream waits for it: when it throws (the claim was lost), the
 * package stops and nothing is left under `key`. `signal` stops it from outside.
 */
export async function writePackage(
  store: BlobStore,
  key: string,
  contents: PackageContents,
  onProgress: (progress: ZipProgress) => Promise<void>,
  signal?: AbortSignal,
): Promise<{ size: number; sha256: string } & ZipProgress> {
  // yazl loads with the first package, not with the server.
  const { ZipFile } = await import('yazl')
  const zip = new ZipFile()
  // yazl's output is a PassThrough (its types say only NodeJS.ReadableStream).
  const output = zip.outputStream as Readable
  let current: Readable | undefined
  let failure: Error | undefined
  const fail = (error: unknown) => {
    failure ??= error instanceof Error ? error : new Error(String(error))
    current?.destroy()
    if (!output.destroyed) output.destroy(failure)
  }
  // The store's pipeline hears the output's error once `put` has started; before that (a stop while
  // it opens its file) this listener keeps the error from being unheard, and `failure` reports it.
  output.on('error', () => undefined)
  zip.on('error', fail)
  const onAbort = () => fail(signal?.reason ?? new Error('packaging stopped'))
  signal?.addEventListener('abort', onAbort, { once: true })
  if (signal?.aborted) onAbort()

  const progress: ZipProgress = { filesDone: 0, bytesDone: 0 }
  let sinceReport = 0
  const at = contents.sentAt ?? new Date(0)
  zip.addBuffer(Buffer.from(coverSheet(contents), 'utf8'), COVER_SHEET_NAME, { compress: false, mtime: at })
  // The same sheet as a PDF to print or file (server/domain/exports/cover-sheet.ts); times in UTC, as the HTML sheet's.
  zip.addBuffer(await coverSheetPdf(contents, { now: at, locale: 'en-GB', timeZone: 'UTC' }), COVER_SHEET_PDF_NAME, { compress: false, mtime: at })
  for (const file of contents.revisions) {
    zip.addReadStreamLazy(file.entryName, { compress: false, size: file.sizeBytes, mtime: file.modifiedAt }, (callback) => {
      const source = store.read(file.blobKey)
      current = source
      const hash = createHash('sha256')
      let seen = 0
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          hash.update(chunk)
          seen += chunk.length
          progress.bytesDone += chunk.length
          sinceReport += chunk.length
          if (sinceReport < PACKAGE_PROGRESS_BYTES) return done(null, chunk)
          sinceReport = 0
          onProgress({ ...progress }).then(() => done(null, chunk), done)
        },
        flush(done) {
          if (seen !== file.sizeBytes || hash.digest('hex') !== file.sha256) {
            return done(new PackageFileError(`The file of ${file.label} does not match its recorded size and SHA-256: it was damaged in storage.`))
          }
          progress.filesDone++
          sinceReport = 0
          onProgress({ ...progress }).then(() => done(), done)
        },
      })
      source.on('error', (error) => fail(readProblem(file, error)))
      counter.on('error', fail)
      callback(null, source.pipe(counter))
    })
  }
  zip.end()
  try {
    const stored = await store.put(key, output)
    if (failure) {
      await store.delete(key)
      throw failure
    }
    return { ...stored, ...progress }
  } catch (error) {
    throw failure ?? error
  } finally {
    signal?.removeEventListener('abort', onAbort)
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => ESCAPES[ch] ?? ch)
}

function bytes(n: number): string {
  if (n < 1024) return `${n} B`
  const units = ['KiB', 'MiB', 'GiB', 'TiB']
  let value = n / 1024
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${value.toFixed(1)} ${units[unit]}`
}

/**
 * The cover sheet: an HTML page any browser opens from the ZIP, listing what was sent, why, to whom,
 * and each file with its size and SHA-256 (so a recipient can check what they hold). Every value
 * is escaped: subjects, messages and file names are people's text.
 */
export function coverSheet(c: PackageContents): string {
  const e = (value: string | null | undefined) => escapeHtml(value ?? '')
  const purpose = PURPOSE_LABELS[c.purpose as IssuePurpose] ?? c.purpose
  const project = [c.project.code, c.project.title].filter(Boolean).join(' – ')
  const rows = (cells: string[]) => `<tr>${cells.map((cell) => `<td>${cell}</td>`).join('')}</tr>`
  const details: Array<[string, string]> = [
    ['Project', e(project || 'Untitled Project')],
    ['Subject', e(c.subject)],
    ['Purpose', e(purpose)],
    ['Sent', e(c.sentAt ? `${c.sentAt.toISOString().replace('T', ' ').slice(0, 16)} UTC` : 'Not sent')],
    ['Sent by', e(c.sentBy ?? '')],
    ['Response due', e(c.responseDueDate ?? 'No response asked')],
  ]
  const total = c.revisions.reduce((sum, r) => sum + r.sizeBytes, 0)
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Transmittal ${e(c.number)}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2rem; color: #111; }
table { border-collapse: collapse; margin: 1rem 0; }
th, td { border: 1px solid #bbb; padding: 0.3rem 0.6rem; text-align: left; vertical-align: top; }
td.hash { font-family: ui-monospace, monospace; font-size: 0.8rem; word-break: break-all; }
.message { white-space: pre-wrap; border-left: 3px solid #bbb; padding-left: 1rem; }
</style>
</head>
<body>
<h1>Transmittal ${e(c.number)}</h1>
<table>
${details.map(([label, value]) => `<tr><th scope="row">${label}</th><td>${value}</td></tr>`).join('\n')}
</table>
<h2>Message</h2>
<div class="message">${e(c.message) || '<em>No message.</em>'}</div>
<h2>Recipients (${c.recipients.length})</h2>
<table>
<tr><th>Name</th><th>E-mail</th><th>Party</th></tr>
${c.recipients.map((r) => rows([e(r.displayName), e(r.email), e(r.party ?? '')])).join('\n')}
</table>
<h2>Documents (${c.revisions.length}, ${e(bytes(total))})</h2>
<table>
<tr><th>File in this package</th><th>Document</th><th>Title</th><th>Revision</th><th>Status</th><th>Original file</th><th>Size</th><th>SHA-256</th></tr>
${c.revisions
  .map(
    (r) =>
      `<tr><td>${e(r.entryName)}</td><td>${e(r.number)}</td><td>${e(r.title)}</td><td>${e(r.code)}</td><td>${e(r.status)}</td><td>${e(r.fileName)}</td><td>${e(bytes(r.sizeBytes))} (${r.sizeBytes} bytes)</td><td class="hash">${e(r.sha256)}</td></tr>`,
  )
  .join('\n')}
</table>
</body>
</html>
`
}
