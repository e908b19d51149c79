import { createRequire } from 'node:module'
import type PDFDocument from 'pdfkit'

/**
 * PDFs through pdfkit (docs/exports.md): pages are written to the stream as they are finished, so
 * a long punch list keeps one page in memory. Two embedded fonts, both SIL Open Font Licence:
 * Noto Sans (Latin, Greek, Cyrillic) and Noto Sans JP (Japanese and the CJK ideographs it shares);
 * each run of text goes out in the first of them that has its glyphs, so "Łukasz Wróbel" and
 * "山田 太郎" both print, and pdfkit embeds only the glyphs used.
 */

const resolve = createRequire(import.meta.url).resolve
const FONT_FILES = {
  latin: resolve('@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf'),
  'latin-bold': resolve('@expo-google-fonts/noto-sans/700Bold/NotoSans_700Bold.ttf'),
  cjk: resolve('@expo-google-fonts/noto-sans-jp/400Regular/NotoSansJP_400Regular.ttf'),
  'cjk-bold': resolve('@expo-google-fonts/noto-sans-jp/700Bold/NotoSansJP_700Bold.ttf'),
} as const

export type Pdf = InstanceType<typeof PDFDocument>

type Weight = 'regular' | 'bold'

export const PAGE = { size: 'A4' as const, margin: 42, footer: 24 }

/** A new A4 document with the fonts registered, "name · page N" at the foot of every page. */
export async function createPdf(options: { title: string; author: string; footer: string; now: Date }): Promise<Pdf> {
  // Loaded at the first PDF, not at the server's start (importing pdfkit with fontkit took 0.14 CPU-s).
  const { default: PDFDocumentClass } = await import('pdfkit')
  const doc = new PDFDocumentClass({
    size: PAGE.size,
    margins: { top: PAGE.margin, left: PAGE.margin, right: PAGE.margin, bottom: PAGE.margin + PAGE.footer },
    info: { Title: options.title, Author: options.author, Creator: 'Site Portal', CreationDate: options.now },
    lang: 'en',
    displayTitle: true,
    autoFirstPage: false,
  })
  let pageNumber = 0
  doc.on('pageAdded', () => {
    pageNumber++
    footer(doc, `${options.footer} · Page ${pageNumber}`)
  })
  doc.addPage()
  return doc
}

function footer(doc: Pdf, text: string): void {
  const { x, y } = doc
  const bottom = doc.page.margins.bottom
  // Writing below the bottom margin would start a new page: lift it while the footer is drawn.
  doc.page.margins.bottom = 0
  write(doc, text, { size: 8, color: '#555555', x: PAGE.margin, y: doc.page.height - PAGE.margin, width: doc.page.width - 2 * PAGE.margin, align: 'center', lineBreak: false })
  doc.page.margins.bottom = bottom
  doc.x = x
  doc.y = y
}

type FontName = keyof typeof FONT_FILES
/** The parts of a fontkit font used here; pdfkit takes the font itself (PDFFontFactory.open: anything with `layout`). */
type ParsedFont = { hasGlyphForCodePoint(codePoint: number): boolean; layout: unknown }

const parsedFonts = new Map<FontName, ParsedFont>()

/**
 * A font file read and parsed once per process. Given a file's path, pdfkit reads and parses it
 * again for every document (the Japanese weights are 5.4 MB each): a one-page PDF took 189 ms of
 * CPU that way and 44 ms with the parsed font (docs/performance.md, 2026-11-30).
 */
function parsedFont(name: FontName): ParsedFont {
  let font = parsedFonts.get(name)
  if (!font) {
    // fontkit comes with pdfkit.
    const fontkit = createRequire(import.meta.url)('fontkit') as { openSync(path: string): ParsedFont }
    font = fontkit.openSync(FONT_FILES[name])
    parsedFonts.set(name, font)
  }
  return font
}

/**
 * One document's view of a parsed font: the tables (cmap, glyf, GSUB…) stay the parsed font's,
 * but the glyphs and the layout engine are the document's own. A fontkit font keeps each glyph
 * with the code points it first met it with, and pdfkit writes a document's ToUnicode map from
 * them, so a shared glyph cache leaked between documents: after a non-breaking hyphen (U+2011,
 * the same glyph as "-"), the next document's "user-abc" read "user abc" in pdftotext. fontkit
 * makes `_layoutEngine` on first use on the object it is asked of (its `@cache` getter), so the
 * view gets its own as long as the parsed font itself never lays out text.
 */
function documentFont(name: FontName): ParsedFont {
  return Object.create(parsedFont(name), { _glyphs: { value: {}, writable: true } }) as ParsedFont
}

/** The fonts each document has been given, as its text first needs them (the CJK ones only when it has such text). */
const registeredFonts = new WeakMap<Pdf, Set<FontName>>()

function useFont(doc: Pdf, name: FontName): void {
  let registered = registeredFonts.get(doc)
  if (!registered) registeredFonts.set(doc, (registered = new Set()))
  if (!registered.has(name)) {
    // pdfkit's types name only paths and buffers; its PDFFontFactory.open takes a parsed font as it is.
    doc.registerFont(name, documentFont(name) as unknown as Buffer)
    registered.add(name)
  }
  doc.font(name)
}

/** Runs of text, each in the first font (Latin, then CJK) that can draw it; spaces stay with the run they are in. */
export function runs(text: string): Array<{ text: string; script: 'latin' | 'cjk' }> {
  const result: Array<{ text: string; script: 'latin' | 'cjk' }> = []
  for (const char of text) {
    const code = char.codePointAt(0) ?? 32
    const last = result.at(-1)
    const script = /\s/.test(char) && last ? last.script : parsedFont('latin').hasGlyphForCodePoint(code) ? 'latin' : 'cjk'
    if (last && last.script === script) last.text += char
    else result.push({ text: char, script })
  }
  return result
}

export type WriteOptions = PDFKit.Mixins.TextOptions & { size?: number; weight?: Weight; color?: string; x?: number; y?: number }

/** Text in any script at the cursor (or at x, y), wrapping within the page. */
export function write(doc: Pdf, text: string, options: WriteOptions = {}): void {
  const { size = 10, weight = 'regular', color = '#111111', x, y, ...textOptions } = options
  const parts = runs(text.length > 0 ? text : ' ')
  doc.fontSize(size).fillColor(color)
  parts.forEach((part, index) => {
    const font = part.script === 'latin' ? (weight === 'bold' ? 'latin-bold' : 'latin') : weight === 'bold' ? 'cjk-bold' : 'cjk'
    useFont(doc, font)
    const continued = index < parts.length - 1
    if (index === 0 && x !== undefined && y !== undefined) doc.text(part.text, x, y, { ...textOptions, continued })
    else doc.text(part.text, { ...textOptions, continued })
  })
}

/** Starts a new page when fewer than `height` points are left above the footer. */
export function ensureRoom(doc: Pdf, height: number): void {
  if (doc.y + height > doc.page.height - doc.page.margins.bottom) doc.addPage()
}
