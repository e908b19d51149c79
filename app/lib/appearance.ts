/**
 * Appearance (spec §3 "Appearance settings", §9 "Theme override is stored locally";
 * docs/settings-appearance-notifications.md). Plain functions shared by the server render, the
 * settings screen, its live-preview island and the backend: the values and their defaults, the
 * device cookie's compact form, the WCAG contrast check, and what the server writes into <html>
 * and <head> on the first paint. No zod here: this module ships to the browser.
 */

export const THEMES = ['system', 'light', 'dark', 'custom'] as const
export type Theme = (typeof THEMES)[number]
export const BASE_MODES = ['light', 'dark'] as const
export type BaseMode = (typeof BASE_MODES)[number]

export const PALETTE_COLOURS = ['primary', 'secondary', 'background', 'surface', 'text'] as const
export type PaletteColour = (typeof PALETTE_COLOURS)[number]

export type Palette = { baseMode: BaseMode } & Record<PaletteColour, string>

export type Appearance = {
  theme: Theme
  highContrast: boolean
  useSystemTheme: boolean
  customPalette: Palette
}

/** Spec §3 "Palette defaults". */
export const DEFAULT_PALETTE: Palette = {
  baseMode: 'light',
  primary: '#2F6FED',
  secondary: '#6A93FF',
  background: '#F6F8FA',
  surface: '#FFFFFF',
  text: '#0B1220',
}

export const DEFAULT_APPEARANCE: Appearance = { theme: 'system', highContrast: false, useSystemTheme: false, customPalette: DEFAULT_PALETTE }

/** The device's override (spec §9): one year, path /, SameSite Lax, HttpOnly (only the server's render reads it). */
export const APPEARANCE_COOKIE = 'sp_appearance'
export const APPEARANCE_COOKIE_MAX_AGE_S = 365 * 24 * 60 * 60

/** WCAG 2.x AA for normal text (success criterion 1.4.3). */
export const WCAG_AA_TEXT = 4.5

const HEX = /^#[0-9a-f]{6}$/i

export function isHexColour(value: unknown): value is string {
  return typeof value === 'string' && HEX.test(value)
}

/** `#rrggbb` in upper case, the spec's notation (a colour input answers lower case). */
export function normaliseHex(value: string): string {
  return value.toUpperCase()
}

// ---- The device cookie ----

const COOKIE_VERSION = '1'
const COOKIE_PALETTE = /^[0-9a-f]{6}$/i

/**
 * The cookie's value: `1:<theme>:<highContrast 0|1>:<useSystemTheme 0|1>` and, when the palette is
 * not the default, `:<l|d>:<primary>:<secondary>:<background>:<surface>:<text>` (hex without `#`).
 * Only cookie-safe characters, 50 bytes at most.
 */
export function serializeAppearance(appearance: Appearance): string {
  const head = [COOKIE_VERSION, appearance.theme, appearance.highContrast ? '1' : '0', appearance.useSystemTheme ? '1' : '0']
  const palette = appearance.customPalette
  if (samePalette(palette, DEFAULT_PALETTE)) return head.join(':')
  return [...head, palette.baseMode === 'dark' ? 'd' : 'l', ...PALETTE_COLOURS.map((name) => palette[name].slice(1).toLowerCase())].join(':')
}

/** The cookie's value read back; anything else (another version, a tampered or cut value) is null and ignored. */
export function parseAppearance(value: string | null | undefined): Appearance | null {
  if (!value || value.length > 100) return null
  const parts = value.split(':')
  if (parts.length !== 4 && parts.length !== 10) return null
  const [version, theme, highContrast, useSystemTheme, base, ...colours] = parts
  if (version !== COOKIE_VERSION) return null
  if (!THEMES.includes(theme as Theme)) return null
  if (!isFlag(highContrast) || !isFlag(useSystemTheme)) return null
  let customPalette = DEFAULT_PALETTE
  if (parts.length === 10) {
    if (base !== 'l' && base !== 'd') return null
    if (!colours.every((c) => COOKIE_PALETTE.test(c))) return null
    const [primary, secondary, background, surface, text] = colours.map((c) => normaliseHex(`#${c}`)) as [string, string, string, string, string]
    customPalette = { baseMode: base === 'd' ? 'dark' : 'light', primary, secondary, background, surface, text }
  }
  return { theme: theme as Theme, highContrast: highContrast === '1', useSystemTheme: useSystemTheme === '1', customPalette }
}

function isFlag(value: string | undefined): boolean {
  return value === '0' || value === '1'
}

/** The Set-Cookie header that stores this appearance on the device. */
export function appearanceSetCookie(appearance: Appearance, options: { secure: boolean }): string {
  return `${APPEARANCE_COOKIE}=${serializeAppearance(appearance)}; Path=/; Max-Age=${APPEARANCE_COOKIE_MAX_AGE_S}; HttpOnly; SameSite=Lax${options.secure ? '; Secure' : ''}`
}

/** The appearance cookie of a Cookie header, or null when there is none or it is not valid. */
export function appearanceFromCookieHeader(header: string | null | undefined): Appearance | null {
  if (!header) return null
  for (const part of header.split(';')) {
    const index = part.indexOf('=')
    if (index > 0 && part.slice(0, index).trim() === APPEARANCE_COOKIE) return parseAppearance(part.slice(index + 1).trim())
  }
  return null
}

export function samePalette(a: Palette, b: Palette): boolean {
  return a.baseMode === b.baseMode && PALETTE_COLOURS.every((name) => a[name].toLowerCase() === b[name].toLowerCase())
}

// ---- Contrast (WCAG 2.x relative luminance) ----

function channel(value: number): number {
  const c = value / 255
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
}

function rgbOf(hex: string): [number, number, number] {
  const n = Number.parseInt(hex.slice(1), 16)
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255]
}

export function relativeLuminance(hex: string): number {
  const [r, g, b] = rgbOf(hex)
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)
}

/** The contrast ratio of two colours, from 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number]
  return (light + 0.05) / (dark + 0.05)
}

/** `weight` of `b` mixed into `a`, in sRGB. */
export function mixHex(a: string, b: string, weight: number): string {
  const [ra, ga, ba] = rgbOf(a)
  const [rb, gb, bb] = rgbOf(b)
  const mix = (x: number, y: number) =>
    Math.round(x + (y - x) * weight)
      .toString(16)
      .padStart(2, '0')
  return normaliseHex(`#${mix(ra, rb)}${mix(ga, gb)}${mix(ba, bb)}`)
}

/** The text on accent buttons of each base mode (app/app.css `--color-white`: white on light themes, ink on dark ones). */
export const ON_ACCENT: Record<BaseMode, string> = { light: '#FFFFFF', dark: '#0B1220' }

/** The tokens a custom palette sets beyond its five colours, derived so links and lines follow it. */
export function paletteTokens(palette: Palette): Record<string, string> {
  const { baseMode, primary, secondary, background, surface, text } = palette
  return {
    primary,
    'primary-strong': baseMode === 'dark' ? mixHex(primary, '#FFFFFF', 0.3) : mixHex(primary, '#000000', 0.2),
    secondary,
    background,
    surface,
    text,
    muted: mixHex(text, surface, 0.25),
    border: mixHex(text, surface, 0.8),
    'border-strong': mixHex(text, surface, 0.45),
    'surface-muted': mixHex(surface, text, 0.06),
  }
}

export type ContrastCheck = { key: 'text-background' | 'text-surface' | 'button-text' | 'link-surface'; label: string; ratio: number; ok: boolean }

/**
 * WCAG AA for a palette: body text on the page and on cards, the text of primary buttons, and
 * links on cards. Below 4.5:1 the screen warns; saving is still allowed.
 */
export function checkPalette(palette: Palette): ContrastCheck[] {
  const tokens = paletteTokens(palette)
  const pairs: Array<[ContrastCheck['key'], string, string, string]> = [
    ['text-background', 'Text on the background', palette.text, palette.background],
    ['text-surface', 'Text on cards (surface)', palette.text, palette.surface],
    ['button-text', 'Text of primary buttons', ON_ACCENT[palette.baseMode], palette.primary],
    ['link-surface', 'Links on cards', tokens['primary-strong'] ?? palette.primary, palette.surface],
  ]
  return pairs.map(([key, label, fg, bg]) => {
    const ratio = contrastRatio(fg, bg)
    return { key, label, ratio: Math.floor(ratio * 100) / 100, ok: ratio >= WCAG_AA_TEXT }
  })
}

// ---- What the server writes on the first paint ----

export type DocumentAppearance = {
  /** <html data-theme>: light or dark, or system to follow prefers-color-scheme in CSS. */
  theme: 'light' | 'dark' | 'system'
  /** <html data-contrast>: high, or system to follow prefers-contrast; absent for normal. */
  contrast: 'high' | 'system' | undefined
  /** <html data-palette="custom"> when the custom palette applies (high contrast overrides it). */
  palette: 'custom' | undefined
  /** The custom palette's rules for a nonce'd <style> in <head> (inline style attributes are blocked by the CSP). */
  css: string | undefined
}

/**
 * How an appearance reaches the page. `useSystemTheme` makes the device decide: light or dark by
 * its colour scheme, high contrast when it asks for more; a custom palette then applies while the
 * device's scheme is the palette's base mode. High contrast wins over any palette.
 */
export function documentAppearance(appearance: Appearance | null): DocumentAppearance {
  if (!appearance) return { theme: 'system', contrast: undefined, palette: undefined, css: undefined }
  const { theme, highContrast, useSystemTheme, customPalette } = appearance
  const mode = useSystemTheme || theme === 'system' ? 'system' : theme === 'custom' ? customPalette.baseMode : theme
  const contrast = highContrast ? 'high' : useSystemTheme ? 'system' : undefined
  if (theme !== 'custom' || highContrast) return { theme: mode, contrast, palette: undefined, css: undefined }
  return { theme: mode, contrast, palette: 'custom', css: paletteCss(customPalette, { followSystem: useSystemTheme }) }
}

/** `:root[data-palette=custom]` rules; every value is a validated hex colour, so nothing else can get in. */
export function paletteCss(palette: Palette, options: { followSystem: boolean }): string {
  const tokens = paletteTokens(palette)
  const declarations = Object.entries(tokens)
    .filter(([, value]) => isHexColour(value))
    .map(([name, value]) => `--color-${name}:${value.toLowerCase()}`)
    .join(';')
  const rule = `:root[data-palette=custom]{${declarations}}`
  if (!options.followSystem) return rule
  return `@media (prefers-color-scheme:${palette.baseMode}){@media not all and (prefers-contrast:more){${rule}}}`
}

/** The appearance a form or request body describes, with the palette defaults for what it leaves out. */
export function withDefaults(input: Partial<Omit<Appearance, 'customPalette'>> & { customPalette?: Partial<Palette> | undefined }): Appearance {
  return {
    theme: input.theme ?? DEFAULT_APPEARANCE.theme,
    highContrast: input.highContrast ?? false,
    useSystemTheme: input.useSystemTheme ?? false,
    customPalette: { ...DEFAULT_PALETTE, ...input.customPalette },
  }
}
