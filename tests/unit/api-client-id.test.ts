import { expect, test } from 'vitest'
import { ensureClientId, generateClientId, isValidClientId, loadBrowserClientId } from '~/lib/api/client-id'
import { detectClientOs } from '~/lib/client-os'

test('a stored id of at least 8 characters is kept', () => {
  expect(ensureClientId('abcd1234')).toEqual({ id: 'abcd1234', generated: false })
  expect(ensureClientId('client-0123456789-abcdef')).toEqual({ id: 'client-0123456789-abcdef', generated: false })
})

test('a missing or short stored id is replaced by a generated one', () => {
  for (const stored of [null, undefined, '', 'abc1234']) {
    const { id, generated } = ensureClientId(stored)
    expect(generated).toBe(true)
    expect(id).toMatch(/^[A-Za-z0-9]{8,36}$/)
  }
})

test('an id that cannot travel as a header is replaced', () => {
  expect(isValidClientId('abc def ghi')).toBe(false)
  expect(isValidClientId('abcdéfghij')).toBe(false)
  expect(ensureClientId('abc def ghi').generated).toBe(true)
})

test('generated ids are alphanumeric, at most 36 characters and unique', () => {
  const ids = new Set(Array.from({ length: 50 }, () => generateClientId()))
  expect(ids.size).toBe(50)
  for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9]{8,36}$/)
})

test('the browser id is read from and written to localStorage under sp.clientId', () => {
  const store = new Map<string, string>()
  const storage = { getItem: (key: string) => store.get(key) ?? null, setItem: (key: string, value: string) => void store.set(key, value) }
  const first = loadBrowserClientId(storage)
  expect(store.get('sp.clientId')).toBe(first)
  expect(loadBrowserClientId(storage)).toBe(first)
  store.set('sp.clientId', 'short')
  const replaced = loadBrowserClientId(storage)
  expect(replaced).not.toBe('short')
  expect(store.get('sp.clientId')).toBe(replaced)
})

test('without a valid stored id, the server cookie id is adopted and stored', () => {
  const store = new Map<string, string>([['sp.clientId', 'short']])
  const storage = { getItem: (key: string) => store.get(key) ?? null, setItem: (key: string, value: string) => void store.set(key, value) }
  expect(loadBrowserClientId(storage, 'server-cid-123')).toBe('server-cid-123')
  expect(store.get('sp.clientId')).toBe('server-cid-123')
  expect(loadBrowserClientId(storage, 'another-cid-456')).toBe('server-cid-123')
  store.clear()
  const generated = loadBrowserClientId(storage, 'bad')
  expect(generated).toMatch(/^[A-Za-z0-9]{8,36}$/)
  expect(store.get('sp.clientId')).toBe(generated)
})

test('storage that refuses access still yields an id', () => {
  const storage = {
    getItem: () => {
      throw new Error('denied')
    },
    setItem: () => {
      throw new Error('quota')
    },
  }
  expect(loadBrowserClientId(storage)).toMatch(/^[A-Za-z0-9]{8,36}$/)
  expect(loadBrowserClientId(undefined)).toMatch(/^[A-Za-z0-9]{8,36}$/)
})

test('the client OS is a short reading of the user agent', () => {
  expect(detectClientOs('Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/126 Mobile')).toBe('Android')
  expect(detectClientOs('Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15')).toBe('iOS')
  expect(detectClientOs('Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X)')).toBe('iOS')
  expect(detectClientOs('Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/126')).toBe('Windows')
  expect(detectClientOs('Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) Safari/605.1.15')).toBe('macOS')
  expect(detectClientOs('Mozilla/5.0 (X11; Linux x86_64) Firefox/127.0')).toBe('Linux')
  expect(detectClientOs('curl/8.5.0')).toBe('Unknown')
  expect(detectClientOs(null)).toBe('Unknown')
})
