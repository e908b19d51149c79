import type { Appearance, ContrastCheck } from '~/lib/appearance'

/** GET and PATCH /api/settings/appearance: the account's appearance (its default on every device without an override). */
export type AppearanceSettings = {
  appearance: Appearance
  /** False while the account never saved one: `appearance` is then the defaults. */
  saved: boolean
  /** The custom palette against WCAG AA (app/lib/appearance.ts checkPalette). */
  contrast: ContrastCheck[]
  updatedAtUtc: string | null
}
