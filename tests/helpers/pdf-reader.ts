import { execFile } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
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

/** `object`: the image's object number in the file (an image drawn twice from one object lists the same number twice). */
export type PdfImageEntry = { page: number; width: number; height: number; encoding: string; object: number; png: Buffer }

/**
 * The images of a PDF as Debian's `pdfimages` finds them: `-list` for their page, size and
 * encoding, and each written out as PNG (`-png`) so a test can look at its pixels.
 */
export async function readPdfImages(bytes: ArrayBuffer | Uint8Array): Promise<PdfImageEntry[]> {
  const folder = await mkdtemp(path.join(os.tmpdir(), 'sp-pdf-images-'))
  try {
    const file = path.join(folder, 'file.pdf')
    await writeFile(file, bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes))
    const list = await run('pdfimages', ['-list', file])
    // page num type width height color comp bpc enc interp object ID x-ppi y-ppi size ratio; two header lines.
    const rows = list.stdout
      .trim()
      .split('\n')
      .slice(2)
      .map((line) => line.trim().split(/\s+/))
      .filter((cells) => cells[2] === 'image')
    await run('pdfimages', ['-png', file, path.join(folder, 'img')])
    const pngs = (await readdir(folder)).filter((name) => name.startsWith('img-') && name.endsWith('.png')).sort()
    // Awaited here: returned as it is, the folder would be removed (finally) while the files are read.
    return await Promise.all(
      rows.map(async (cells, index) => ({
        page: Number(cells[0]),
        width: Number(cells[3]),
        height: Number(cells[4]),
        encoding: cells[8] ?? '',
        object: Number(cells[10]),
        png: await readFile(path.join(folder, pngs[index] ?? 'missing')),
      })),
    )
  } finally {
    await rm(folder, { recursive: true, force: true })
  }
}
