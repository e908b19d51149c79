import { availableParallelism } from 'node:os'
import { Problem } from '#server/http/problem'

/**
 * Bounded concurrency for CPU-heavy photo work (decode, resize, HEIC decode, encode): at most
 * `concurrency` jobs run, the rest wait in order. Without it, fifty completes at once decode fifty
 * images at once: memory grows with the burst and every other request waits behind libvips
 * threads. A wait list past `maxWaiting` is refused (503, retry later) rather than grown without end.
 */
export class WorkQueue {
  private running = 0
  private readonly waiting: Array<() => void> = []

  constructor(
    readonly concurrency: number,
    readonly maxWaiting: number,
  ) {}

  get size(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length }
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) {
      if (this.waiting.length >= this.maxWaiting) throw busyProblem()
      await new Promise<void>((resolve) => this.waiting.push(resolve))
    } else {
      this.running++
    }
    try {
      return await work()
    } finally {
      const next = this.waiting.shift()
      // The slot passes straight to the next job, so `running` never overshoots.
      if (next) next()
      else this.running--
    }
  }
}

function busyProblem(): Problem {
  return new Problem({
    status: 503,
    title: 'Service unavailable',
    detail: 'Too many photos are being processed right now; the upload is kept, complete it again shortly.',
    code: 'KR_PHOTO_PROCESSING_BUSY',
    remediation: 'Retry the complete call in a few seconds.',
    retryAfterSeconds: 5,
  })
}

/**
 * One image job per CPU, each on one libvips thread (images.ts sets sharp.concurrency(1)): the
 * cores are used without oversubscribing them, and memory is bounded by a few images in flight.
 */
export const RENDITION_CONCURRENCY = Math.max(1, availableParallelism())
export const RENDITION_MAX_WAITING = 500

export const renditionQueue = new WorkQueue(RENDITION_CONCURRENCY, RENDITION_MAX_WAITING)
