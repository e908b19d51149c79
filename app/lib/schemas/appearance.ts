import { z } from 'zod'
import { BASE_MODES, THEMES } from '~/lib/appearance'

const theme = z.enum(THEMES, { error: 'Choose a theme: system, light, dark or custom.' })
const baseMode = z.enum(BASE_MODES, { error: 'Choose a base mode: light or dark.' })
const colour = (label: string) =>
  z
    .string({ error: `${label} must be a colour like #2F6FED.` })
    .regex(/^#[0-9a-fA-F]{6}$/, `${label} must be a colour like #2F6FED.`)
    .transform((value) => value.toUpperCase())

const paletteFields = {
  baseMode,
  primary: colour('Primary'),
  secondary: colour('Secondary'),
  background: colour('Background'),
  surface: colour('Surface'),
  text: colour('Text'),
}

/** PATCH /api/settings/appearance: what is sent changes, the rest is kept (spec §3 "Appearance settings"). */
export const AppearancePatchSchema = z
  .object({
    theme: theme.optional(),
    highContrast: z.boolean({ error: 'highContrast must be true or false.' }).optional(),
    useSystemTheme: z.boolean({ error: 'useSystemTheme must be true or false.' }).optional(),
    customPalette: z
      .object({
        baseMode: baseMode.optional(),
        primary: paletteFields.primary.optional(),
        secondary: paletteFields.secondary.optional(),
        background: paletteFields.background.optional(),
        surface: paletteFields.surface.optional(),
        text: paletteFields.text.optional(),
      })
      .strict()
      .optional(),
  })
  .strict()

/** The appearance form (app/components/settings/appearance-card.tsx): the palette's fields are flat; unticked boxes send nothing. */
export const AppearanceFormSchema = z.object({
  theme,
  highContrast: z.boolean().optional(),
  useSystemTheme: z.boolean().optional(),
  ...paletteFields,
})
