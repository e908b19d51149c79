import { readFileSync } from 'node:fs'
import { expect, test } from 'vitest'
import { contrastRatio } from '~/lib/appearance'

/**
 * The theme token sets of app/app.css (docs/settings-appearance-notifications.md "Themes"): every
 * pair the screens draw together reaches WCAG AA in the light and dark sets and AAA (7:1) for
 * text in the high-contrast sets; every set overrides every colour of @theme; the copies under a
 * media query are the same as their originals.
 */

const css = readFileSync(new URL('../../app/app.css', import.meta.url), 'utf8')

/** The `--color-*` declarations of the (first) rule with exactly this selector, or of @theme. */
function tokensOf(selector: string): Record<string, string> {
  const start = selector === '@theme' ? css.indexOf('@theme {') : css.indexOf(`${selector} {`)
  expect(start, selector).toBeGreaterThanOrEqual(0)
  const body = css.slice(css.indexOf('{', start) + 1, css.indexOf('}', start))
  return Object.fromEntries([...body.matchAll(/--color-([a-z-]+):\s*(#[0-9a-f]{6})\s*;/gi)].map((m) => [m[1], m[2]]))
}

/** All rules with this selector that set colours, wherever they are (inside media queries too). */
function allTokensOf(selector: string): Record<string, string>[] {
  const found: Record<string, string>[] = []
  let from = 0
  for (;;) {
    const start = css.indexOf(`${selector} {`, from)
    if (start < 0) return found
    const body = css.slice(css.indexOf('{', start) + 1, css.indexOf('}', start))
    const tokens = Object.fromEntries([...body.matchAll(/--color-([a-z-]+):\s*(#[0-9a-f]{6})\s*;/gi)].map((m) => [m[1], m[2]]))
    if (Object.keys(tokens).length > 0) found.push(tokens)
    from = start + 1
  }
}

const light: Record<string, string> = { ...tokensOf('@theme'), white: '#ffffff' }
const sets: Record<string, Record<string, string>> = {
  light,
  dark: tokensOf(":root[data-theme='dark']"),
  'high contrast': tokensOf(":root[data-contrast='high']"),
  'high contrast dark': tokensOf(":root[data-contrast='high'][data-theme='dark']"),
}

/** [foreground, background, minimum]: text pairs are 4.5:1, boundaries of controls 3:1 (WCAG 1.4.11). */
const PAIRS: Array<[string, string, number]> = [
  ['text', 'background', 4.5],
  ['text', 'surface', 4.5],
  ['text', 'surface-muted', 4.5],
  ['text', 'info-surface', 4.5],
  ['text', 'critical-surface', 4.5],
  ['text', 'success-surface', 4.5],
  ['text', 'warning-surface', 4.5],
  ['muted', 'surface', 4.5],
  ['muted', 'background', 4.5],
  ['muted', 'surface-muted', 4.5],
  ['primary-strong', 'surface', 4.5],
  ['primary-strong', 'background', 4.5],
  ['primary-strong', 'surface-muted', 4.5],
  ['primary', 'surface', 4.5],
  ['white', 'primary', 4.5],
  ['white', 'primary-strong', 4.5],
  ['white', 'critical', 4.5],
  ['white', 'critical-strong', 4.5],
  ['critical', 'surface', 4.5],
  ['critical', 'critical-surface', 4.5],
  ['critical-strong', 'critical-surface', 4.5],
  ['success', 'surface', 4.5],
  ['success', 'success-surface', 4.5],
  ['warning', 'surface', 4.5],
  ['warning', 'warning-surface', 4.5],
  ['info', 'surface', 4.5],
  ['info', 'info-surface', 4.5],
  ['border-strong', 'surface', 3],
  ['border-strong', 'background', 3],
]

test('each theme overrides every colour token of @theme (and the text on accents)', () => {
  const names = Object.keys(light).sort()
  expect(names.length).toBeGreaterThan(18)
  for (const [name, tokens] of Object.entries(sets)) expect(Object.keys(tokens).sort(), name).toEqual(names)
})

for (const [name, tokens] of Object.entries(sets)) {
  test(`the ${name} theme reaches WCAG ${name.startsWith('high') ? 'AAA for text' : 'AA'} for every pair drawn together`, () => {
    const failures = PAIRS.flatMap(([fg, bg, min]) => {
      const needed = name.startsWith('high') && min === 4.5 ? 7 : min
      const ratio = contrastRatio(tokens[fg] ?? '#000000', tokens[bg] ?? '#000000')
      return ratio >= needed ? [] : [`${fg} on ${bg}: ${ratio.toFixed(2)} < ${needed}`]
    })
    expect(failures).toEqual([])
  })
}

test('the copies that follow the device (prefers-color-scheme, prefers-contrast) equal their originals', () => {
  expect(allTokensOf(":root[data-theme='system']")).toEqual([sets.dark])
  expect(allTokensOf(":root[data-contrast='high'][data-theme='system']")).toEqual([sets['high contrast dark']])
  expect(allTokensOf(":root[data-contrast='system']")).toEqual([sets['high contrast']])
  expect(allTokensOf(":root[data-contrast='system'][data-theme='dark']")).toEqual([sets['high contrast dark']])
  expect(allTokensOf(":root[data-contrast='system'][data-theme='system']")).toEqual([sets['high contrast dark']])
  expect(css).toMatch(/@media \(prefers-color-scheme: dark\) \{\n {2}:root\[data-theme='system'\] \{/)
  expect(css).toMatch(/@media \(prefers-contrast: more\) and \(prefers-color-scheme: dark\) \{\n {2}:root\[data-contrast='system'\]\[data-theme='system'\] \{/)
})
