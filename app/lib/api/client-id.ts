import { CLIENT_ID_MAX_LENGTH, CLIENT_ID_MIN_LENGTH, CLIENT_ID_STORAGE_KEY } from '~/lib/constants'
import { randomUuid } from './random'

/**
 * Spec §5: a stored client id must be at least 8 characters. It also has to be visible ASCII
 * without spaces, because it travels as the X-Client-Id header and Headers refuses other bytes.
 */
export function isValidClientId(value: string | null | undefined): value is string {
  return typeof value === 'string' && value.length >= CLIENT_ID_MIN_LENGTH && /^[\x21-\x7e]+$/.test(value)
}

/** Spec §5: a new id is alphanumeric and at most 36 characters (a UUID without its dashes: 32). */
export function generateClientId(): string {
  return randomUuid().replace(/-/g, '').slice(0, CLIENT_ID_MAX_LENGTH)
}

/** Keeps a valid stored id, or generates a new one and says so, so the caller can store it. */
export function ensureClientId(stored: string | null | undefined): { id: string; generated: boolean } {
  if (isValidClientId(stored)) return { id: stored, generated: false }
  return { id: generateClientId(), generated: true }
}

/**
 * The browser's client id, kept in localStorage. Without a valid stored id, `fallback` (the
 * server's sp_cid cookie) is adopted so the page's server-side and in-browser calls share one id.
 * Storage may be missing or refuse writes (private browsing, quota): the id then lives for this
 * page only.
 */
export function loadBrowserClientId(
  storage: Pick<Storage, 'getItem' | 'setItem'> | undefined = browserStorage(),
  fallback?: string | undefined,
): string {
  const stored = readStored(storage)
  if (isValidClientId(stored)) return stored
  const { id } = ensureClientId(fallback)
  try {
    storage?.setItem(CLIENT_ID_STORAGE_KEY, id)
  } catch {
    // Not stored: a new id next time is the only cost.
  }
  return id
}

function readStored(storage: Pick<Storage, 'getItem'> | undefined): string | null {
  try {
    return storage?.getItem(CLIENT_ID_STORAGE_KEY) ?? null
  } catch {
    return null
  }
}

function browserStorage(): Storage | undefined {
  try {
    return typeof localStorage === 'undefined' ? undefined : localStorage
  } catch {
    // Reading localStorage itself throws when the browser blocks site data.
    return undefined
  }
}
