import type { Owner } from './local-copy'

/** What pages tell field mode's service worker (app/sw/service-worker.ts). */
export type FieldMessage =
  /** Who is signed in on this page, and the browser's client id for the calls the worker makes. */
  | { type: 'owner'; owner: Owner; clientId: string }
  /** Send the outbox now (the connection may be back). */
  | { type: 'flush' }
  /** This device signed out: the worker forgets who it works for. */
  | { type: 'forget' }

/** What the worker tells pages. */
export type WorkerMessage = { type: 'outbox-changed'; itemIds: string[] }

export const SERVICE_WORKER_PATH = '/sw.js'
