import { type CSSProperties } from 'react'
import { documentNonce } from '~/lib/appearance-nonce'
import { checkPalette, ON_ACCENT, paletteTokens, WCAG_AA_TEXT, type Palette } from '~/lib/appearance'

export const PREVIEW_ID = 'appearance-preview'

/** The preview's colours as custom properties (`--pv-…`), for a stylesheet rule or the element's CSSOM. */
function previewVariables(palette: Palette): Record<string, string> {
  const tokens = paletteTokens(palette)
  const variables: Record<string, string> = { '--pv-on-primary': ON_ACCENT[palette.baseMode] }
  for (const [name, value] of Object.entries(tokens)) variables[`--pv-${name}`] = value
  return variables
}

/**
 * Sample page, card, link and buttons in the custom palette, with its contrast check. The server
 * renders the saved colours through a nonce'd stylesheet rule (the CSP refuses inline style
 * attributes); with JavaScript, `live` (the colours being picked) is set through the element's
 * CSSOM, which the CSP allows, so the preview follows every pick.
 */
export function AppearancePreview({ saved, live, nonce }: { saved: Palette; live: Palette | null; nonce: string | undefined }) {
  const palette = live ?? saved
  const checks = checkPalette(palette)
  const failing = checks.filter((check) => !check.ok)
  const savedRule = `#${PREVIEW_ID}{${Object.entries(previewVariables(saved))
    .map(([name, value]) => `${name}:${value.toLowerCase()}`)
    .join(';')}}`
  return (
    <div className="flex flex-col gap-4">
      <style nonce={documentNonce(nonce)} suppressHydrationWarning>
        {savedRule}
      </style>
      <div
        id={PREVIEW_ID}
        data-testid="appearance-preview"
        aria-label="Preview of the custom palette"
        role="group"
        style={live ? (previewVariables(live) as CSSProperties) : undefined}
        className="rounded-lg border border-border bg-(--pv-background) p-4 text-(--pv-text)"
      >
        <p className="text-sm">Page background with text</p>
        <div className="mt-3 rounded-md border border-(--pv-border) bg-(--pv-surface) p-4">
          <p className="font-semibold">A card</p>
          <p className="mt-1 text-sm text-(--pv-muted)">Secondary text on a card.</p>
          <p className="mt-2 text-sm">
            <span className="text-(--pv-primary-strong) underline">A link</span>
          </p>
          <div className="mt-3 flex flex-wrap items-center gap-2">
            <span className="inline-flex min-h-9 items-center rounded-md bg-(--pv-primary) px-3 text-sm font-medium text-(--pv-on-primary)">Primary button</span>
            <span className="inline-flex min-h-9 items-center rounded-md border border-(--pv-border-strong) bg-(--pv-surface) px-3 text-sm font-medium">Secondary button</span>
            <span className="inline-flex items-center gap-1.5 text-sm">
              <span aria-hidden="true" className="size-3 rounded-full bg-(--pv-secondary)" />
              Secondary accent
            </span>
          </div>
        </div>
      </div>
      <div aria-live="polite" className="flex flex-col gap-2">
        {failing.length > 0 ? (
          <div role="status" data-testid="contrast-warning" className="rounded-md border border-warning bg-warning-surface px-4 py-3 text-sm text-text">
            <p className="font-semibold text-warning">Some colours are hard to read</p>
            <p className="mt-1">
              WCAG AA asks for a contrast of at least {WCAG_AA_TEXT}:1. {failing.map((check) => `${check.label}: ${formatRatio(check.ratio)}.`).join(' ')}
            </p>
          </div>
        ) : null}
        <ul className="grid gap-1 text-sm text-muted sm:grid-cols-2" aria-label="Contrast check">
          {checks.map((check) => (
            <li key={check.key}>
              {check.label}: <span className={check.ok ? 'text-success' : 'font-semibold text-warning'}>{formatRatio(check.ratio)}</span>
              {check.ok ? ' (AA)' : ' (below AA)'}
            </li>
          ))}
        </ul>
      </div>
    </div>
  )
}

function formatRatio(ratio: number): string {
  return `${ratio.toFixed(2)}:1`
}
