import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'

/**
 * Page 1 of a PDF rendered to RGBA pixels with PDFium (@hyzyla/pdfium: PDFium compiled to
 * WebAssembly, MIT, no native build and no download at install). PDFium runs in a worker thread of
 * its own for each render, never on the request thread: a dense drawing takes seconds to render,
 * and a hostile file must not stall or crash the server; the worker is ended after
 * PDF_RENDER_TIMEOUT_MS, and its memory goes with it. The worker's code is plain JavaScript
 * evaluated in the worker, so the server's bundle needs no second entry point.
 */

export const PDF_RENDER_TIMEOUT_MS = 60_000

export type PdfRaster = { width: number; height: number; rgba: Uint8Array }

const library = createRequire(import.meta.url).resolve('@hyzyla/pdfium')

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const { readFile } = require('node:fs/promises')
;(async () => {
  const { PDFiumLibrary } = require(workerData.library)
  const pdfium = await PDFiumLibrary.init()
  try {
    const document = await pdfium.loadDocument(await readFile(workerData.path))
    try {
      const page = document.getPage(0)
      const { originalWidth, originalHeight } = page.getOriginalSize()
      const scale = workerData.maxSide / Math.max(originalWidth, originalHeight, 1)
      const render = await page.render({ scale, render: 'bitmap', transparent: false })
      const rgba = new Uint8Array(render.data)
      parentPort.postMessage({ width: render.width, height: render.height, rgba }, [rgba.buffer])
    } finally {
      document.destroy()
    }
  } finally {
    pdfium.destroy()
  }
})().catch((error) => parentPort.postMessage({ error: String((error && error.message) || error) }))
`

export class PdfRenderError extends Error {
  override name = 'PdfRenderError'
}

/** Renders page 1 of the PDF at `path` so that its longer side is `maxSide` pixels. */
export function renderPdfFirstPage(path: string, maxSide: number): Promise<PdfRaster> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { library, path, maxSide } })
    let settled = false
    const settle = (outcome: () => void) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      void worker.terminate()
      outcome()
    }
    const timer = setTimeout(() => settle(() => reject(new PdfRenderError(`rendering took more than ${PDF_RENDER_TIMEOUT_MS} ms`))), PDF_RENDER_TIMEOUT_MS)
    worker.on('message', (message: PdfRaster | { error: string }) => {
      if ('error' in message) settle(() => reject(new PdfRenderError(message.error)))
      else settle(() => resolve(message))
    })
    worker.on('error', (error) => settle(() => reject(new PdfRenderError(error.message, { cause: error }))))
    worker.on('exit', (code) => settle(() => reject(new PdfRenderError(`the PDF worker stopped (${code})`))))
  })
}
