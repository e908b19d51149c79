import { expect, test } from 'vitest'
import {
  APPEARANCE_COOKIE,
  appearanceFromCookieHeader,
  appearanceSetCookie,
  checkPalette,
  contrastRatio,
  DEFAULT_APPEARANCE,
  DEFAULT_PALETTE,
  documentAppearance,
  mixHex,
  parseAppearance,
  relativeLuminance,
  serializeAppearance,
  type Appearance,
} from '~/lib/appearance'

/** docs/settings-appearance-notifications.md: the appearance's pure rules. */

test('the palette defaults are spec §3’s, and the default theme follows the system', () => {
  expect(DEFAULT_PALETTE).toEqual({ baseMode: 'light', primary: '#2F6FED', secondary: '#6A93FF', background: '#F6F8FA', surface: '#FFFFFF', text: '#0B1220' })
  expect(DEFAULT_APPEARANCE).toEqual({ theme: 'system', highContrast: false, useSystemTheme: false, customPalette: DEFAULT_PALETTE })
})

test('contrast follows WCAG 2.x: black on white is 21:1, equal colours 1:1, order does not matter', () => {
  expect(relativeLuminance('#FFFFFF')).toBeCloseTo(1, 10)
  expect(relativeLuminance('#000000')).toBe(0)
  expect(contrastRatio('#000000', '#FFFFFF')).toBeCloseTo(21, 10)
  expect(contrastRatio('#FFFFFF', '#000000')).toBeCloseTo(21, 10)
  expect(contrastRatio('#2F6FED', '#2F6FED')).toBe(1)
  // Known pairs (WebAIM's checker): #767676 on white is the lightest grey that passes AA.
  expect(contrastRatio('#767676', '#FFFFFF')).toBeCloseTo(4.54, 2)
  expect(contrastRatio('#777777', '#FFFFFF')).toBeLessThan(4.5)
  expect(contrastRatio('#0B1220', '#F6F8FA')).toBeGreaterThan(17)
})

test('the default palette passes every check; a light text colour fails the text checks only', () => {
  expect(checkPalette(DEFAULT_PALETTE).every((check) => check.ok)).toBe(true)
  const pale = checkPalette({ ...DEFAULT_PALETTE, text: '#B0B0B0' })
  expect(pale.filter((check) => !check.ok).map((check) => check.key)).toEqual(['text-background', 'text-surface'])
  expect(pale.find((check) => check.key === 'text-surface')?.ratio).toBeCloseTo(2.15, 1)
  // Primary buttons carry white text on a light base: a pale primary fails them.
  expect(checkPalette({ ...DEFAULT_PALETTE, primary: '#A0C0FF' }).find((check) => check.key === 'button-text')?.ok).toBe(false)
  // On a dark base the button text is ink, so a pale primary is right there.
  expect(checkPalette({ baseMode: 'dark', primary: '#A0C0FF', secondary: '#6A93FF', background: '#0D1117', surface: '#161B22', text: '#E6EDF3' }).every((c) => c.ok)).toBe(true)
})

test('colours mix in sRGB', () => {
  expect(mixHex('#000000', '#FFFFFF', 0.5)).toBe('#808080')
  expect(mixHex('#2F6FED', '#2F6FED', 0.3)).toBe('#2F6FED')
  expect(mixHex('#FF0000', '#0000FF', 0)).toBe('#FF0000')
})

test('the cookie is compact and reads back as it was written', () => {
  const dark: Appearance = { ...DEFAULT_APPEARANCE, theme: 'dark' }
  expect(serializeAppearance(dark)).toBe('1:dark:0:0')
  expect(parseAppearance('1:dark:0:0')).toEqual(dark)
  const custom: Appearance = {
    theme: 'custom',
    highContrast: true,
    useSystemTheme: true,
    customPalette: { baseMode: 'dark', primary: '#112233', secondary: '#445566', background: '#000000', surface: '#0A0B0C', text: '#FFFFFF' },
  }
  const value = serializeAppearance(custom)
  expect(value).toBe('1:custom:1:1:d:112233:445566:000000:0a0b0c:ffffff')
  expect(value.length).toBeLessThanOrEqual(50)
  expect(value).toMatch(/^[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]+$/)
  expect(parseAppearance(value)).toEqual(custom)
  const header = appearanceSetCookie(custom, { secure: true })
  expect(header).toBe(`${APPEARANCE_COOKIE}=${value}; Path=/; Max-Age=31536000; HttpOnly; SameSite=Lax; Secure`)
  expect(appearanceFromCookieHeader(`sp_cid=abc; ${APPEARANCE_COOKIE}=${value}; other=1`)).toEqual(custom)
})

test('a bad cookie is ignored, whatever is wrong with it', () => {
  const bad = [
    undefined,
    null,
    '',
    'dark',
    '2:dark:0:0',
    '1:neon:0:0',
    '1:dark:2:0',
    '1:dark:0',
    '1:dark:0:0:',
    '1:custom:0:0:x:112233:445566:000000:0a0b0c:ffffff',
    '1:custom:0:0:d:112233:445566:000000:0a0b0c',
    '1:custom:0:0:d:11223g:445566:000000:0a0b0c:ffffff',
    '1:custom:0:0:d:112233:445566:000000:0a0b0c:ffffff:00',
    '1:custom:0:0:d:"}*{color:red}:445566:000000:0a0b0c:ffffff',
    '1:dark:0:0'.padEnd(200, '0'),
    '%31%3Adark%3A0%3A0',
  ]
  for (const value of bad) expect(parseAppearance(value), String(value)).toBeNull()
  expect(appearanceFromCookieHeader('sp_appearance=1:neon:0:0')).toBeNull()
  expect(appearanceFromCookieHeader('xsp_appearance=1:dark:0:0')).toBeNull()
  expect(appearanceFromCookieHeader(null)).toBeNull()
})

test('the first paint: data-theme, data-contrast and the custom palette’s rule', () => {
  expect(documentAppearance(null)).toEqual({ theme: 'system', contrast: undefined, palette: undefined, css: undefined })
  expect(documentAppearance({ ...DEFAULT_APPEARANCE, theme: 'dark' })).toMatchObject({ theme: 'dark', contrast: undefined, css: undefined })
  expect(documentAppearance({ ...DEFAULT_APPEARANCE, theme: 'light', highContrast: true })).toMatchObject({ theme: 'light', contrast: 'high' })
  // Use system theme: the device decides light or dark and contrast.
  expect(documentAppearance({ ...DEFAULT_APPEARANCE, theme: 'dark', useSystemTheme: true })).toMatchObject({ theme: 'system', contrast: 'system' })

  const palette = { ...DEFAULT_PALETTE, baseMode: 'dark' as const, background: '#101010', text: '#EEEEEE' }
  const custom = documentAppearance({ ...DEFAULT_APPEARANCE, theme: 'custom', customPalette: palette })
  expect(custom).toMatchObject({ theme: 'dark', palette: 'custom' })
  expect(custom.css).toMatch(/^:root\[data-palette=custom\]\{.*--color-background:#101010;.*--color-text:#eeeeee.*\}$/)
  expect(custom.css).not.toContain('@media')
  const following = documentAppearance({ ...DEFAULT_APPEARANCE, theme: 'custom', useSystemTheme: true, customPalette: palette })
  expect(following.css).toMatch(/^@media \(prefers-color-scheme:dark\)\{@media not all and \(prefers-contrast:more\)\{:root/)
  // High contrast takes the place of the palette.
  expect(documentAppearance({ ...DEFAULT_APPEARANCE, theme: 'custom', highContrast: true, customPalette: palette })).toEqual({
    theme: 'dark',
    contrast: 'high',
    palette: undefined,
    css: undefined,
  })
})
