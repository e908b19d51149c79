import { describe, expect, it } from 'vitest'
import { createPdf, write, type Pdf } from '#server/domain/formats/pdf'
import { readPdf } from '../helpers/pdf-reader'

async function bytesOf(doc: Pdf): Promise<Buffer> {
  const chunks: Buffer[] = []
  doc.on('data', (chunk: Buffer) => chunks.push(chunk))
  const done = new Promise<void>((resolve) => doc.on('end', () => resolve()))
  doc.end()
  await done
  return Buffer.concat(chunks)
}

async function pdfOf(lines: string[]): Promise<string> {
  const doc = await createPdf({ title: 'Fonts', author: 'Test', footer: 'Fonts', now: new Date('2026-11-30T12:00:00Z') })
  for (const line of lines) write(doc, line)
  return (await readPdf(await bytesOf(doc))).text
}

describe('PDF fonts shared by the documents of a process', () => {
  it('keeps each document’s text as written, whatever an earlier document met first', async () => {
    // U+2011 (non-breaking hyphen) is drawn with the glyph of "-": a glyph cache shared between
    // documents made the next document's "-" read as U+2011's fallback, a space, in pdftotext.
    const first = await pdfOf(['Block‑A – level 2', '山田 太郎 · Łukasz Wróbel'])
    expect(first).toContain('Block')
    const second = await pdfOf(['user-abc', 'Ref: DOC-0001-A', '山田 太郎'])
    expect(second).toContain('user-abc')
    expect(second).toContain('DOC-0001-A')
    expect(second).toContain('山田 太郎')
    // Both orders: the later document's glyphs do not rewrite the earlier ones either.
    const third = await pdfOf(['Block‑A'])
    expect(third).toMatch(/Block.A/)
    expect(await pdfOf(['user-abc'])).toContain('user-abc')
  })
})
