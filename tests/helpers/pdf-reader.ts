import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

/**
 * A PDF read with Debian's poppler-utils, never our own code (scripts/ensure-poppler.mjs installs
 * them): its text in reading order, its page count and whether every font is embedded.
 */
export async function readPdf(bytes: ArrayBuffer | Uint8Array): Promise<{ text: string; pages: number; fontsEmbedded: boolean; fonts: string }> {
  const folder = await mkdtemp(path.join(os.tmpdir(), 'sp-pdf-'))
  try {
    const file = path.join(folder, 'file.pdf')
    await writeFile(file, bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes))
    const [text, info, fonts] = await Promise.all([
      run('pdftotext', ['-enc', 'UTF-8', '-layout', file, '-']),
      run('pdfinfo', [file]),
      run('pdffonts', [file]),
    ])
    const pages = Number(/^Pages:\s+(\d+)/m.exec(info.stdout)?.[1] ?? 0)
    // pdffonts: name, type, encoding, emb, sub, uni, object id; two header lines.
    const rows = fonts.stdout.trim().split('\n').slice(2)
    const fontsEmbedded = rows.length > 0 && rows.every((row) => / yes +yes +yes +\d+ +\d+$/.test(row) || / yes +yes +no +\d+ +\d+$/.test(row))
    return { text: text.stdout, pages, fontsEmbedded, fonts: fonts.stdout }
  } finally {
    await rm(folder, { recursive: true, force: true })
  }
}
