import { expect, test } from 'vitest'
import { loadVisitorId, readVisitorCookie, visitorCookie } from '~/islands/telemetry/visitor'
import { CLIENT_ID_MAX_LENGTH, CLIENT_ID_MIN_LENGTH, VISITOR_COOKIE, VISITOR_COOKIE_MAX_AGE_S } from '~/lib/constants'

/** Spec §9 "Visitor cookie kr-vis" and the client id rule of spec §5. */

/** A document.cookie stand-in: reading gives name=value pairs, writing sets one cookie and keeps its attributes. */
function cookieJar(initial: Record<string, string> = {}) {
  const values = new Map(Object.entries(initial))
  const written: string[] = []
  return {
    written,
    get cookie() {
      return [...values].map(([name, value]) => `${name}=${value}`).join('; ')
    },
    set cookie(line: string) {
      written.push(line)
      const [pair = ''] = line.split(';')
      const at = pair.indexOf('=')
      values.set(pair.slice(0, at), pair.slice(at + 1))
    },
  }
}

test('the constants are those of spec §5 and §9', () => {
  expect(VISITOR_COOKIE).toBe('kr-vis')
  expect(VISITOR_COOKIE_MAX_AGE_S).toBe(7 * 24 * 60 * 60)
  expect(CLIENT_ID_MIN_LENGTH).toBe(8)
  expect(CLIENT_ID_MAX_LENGTH).toBe(36)
})

test('the cookie lives 7 days on path / with SameSite=Lax, and is Secure on https', () => {
  expect(visitorCookie('abcdefgh12', false)).toBe('kr-vis=abcdefgh12; Max-Age=604800; Path=/; SameSite=Lax')
  expect(visitorCookie('abcdefgh12', true)).toBe('kr-vis=abcdefgh12; Max-Age=604800; Path=/; SameSite=Lax; Secure')
})

test('the cookie is found among others', () => {
  expect(readVisitorCookie('a=1; kr-vis=visitor-0001; b=2')).toBe('visitor-0001')
  expect(readVisitorCookie('kr-vis=first')).toBe('first')
  expect(readVisitorCookie('xkr-vis=nope; kr-vis-2=nope')).toBeUndefined()
  expect(readVisitorCookie('')).toBeUndefined()
})

test('without a cookie a new alphanumeric id of at most 36 characters is made and stored for 7 days', () => {
  const jar = cookieJar({ other: 'x' })
  const id = loadVisitorId(jar, true)
  expect(id).toMatch(/^[A-Za-z0-9]+$/)
  expect(id.length).toBeGreaterThanOrEqual(CLIENT_ID_MIN_LENGTH)
  expect(id.length).toBeLessThanOrEqual(CLIENT_ID_MAX_LENGTH)
  expect(jar.written).toEqual([`kr-vis=${id}; Max-Age=604800; Path=/; SameSite=Lax; Secure`])
  // The next page load reads the same id back, and renews its 7 days.
  expect(loadVisitorId(jar, true)).toBe(id)
  expect(jar.written).toHaveLength(2)
  expect(jar.written[1]).toBe(jar.written[0])
})

test('a stored id of at least 8 characters is kept', () => {
  expect(loadVisitorId(cookieJar({ 'kr-vis': 'abcd1234' }), false)).toBe('abcd1234')
  const uuid = '0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9'
  expect(loadVisitorId(cookieJar({ 'kr-vis': uuid }), false)).toBe(uuid)
})

test('a short, empty or unsendable stored id is replaced', () => {
  for (const stored of ['abc1234', '', 'abc def ghi', 'abcdéfghij']) {
    const jar = cookieJar({ 'kr-vis': stored })
    const id = loadVisitorId(jar, false)
    expect(id).not.toBe(stored)
    expect(id).toMatch(/^[A-Za-z0-9]{8,36}$/)
    expect(jar.written).toEqual([`kr-vis=${id}; Max-Age=604800; Path=/; SameSite=Lax`])
  }
})

test('new ids are unique', () => {
  const ids = new Set(Array.from({ length: 50 }, () => loadVisitorId(cookieJar(), false)))
  expect(ids.size).toBe(50)
})

test('blocked cookies still give an id for this page', () => {
  const jar = {
    get cookie() {
      return ''
    },
    set cookie(_line: string) {
      throw new DOMException('The document is sandboxed', 'SecurityError')
    },
  }
  expect(loadVisitorId(jar, false)).toMatch(/^[A-Za-z0-9]{8,36}$/)
})
