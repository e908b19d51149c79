import { getFormProps, getInputProps, useForm, type SubmissionResult } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { useState, type FormEvent } from 'react'
import { Form, useRouteLoaderData } from 'react-router'
import { AppearancePreview } from '~/components/settings/appearance-preview'
import { Card } from '~/components/ui/card'
import { CheckboxField } from '~/components/ui/checkbox-field'
import { ConfirmDialog } from '~/components/ui/confirm-dialog'
import { CsrfInput } from '~/components/ui/csrf-input'
import { ErrorList } from '~/components/ui/error-list'
import { FormError } from '~/components/ui/form-error'
import { SubmitButton } from '~/components/ui/submit-button'
import { DEFAULT_APPEARANCE, DEFAULT_PALETTE, isHexColour, PALETTE_COLOURS, type Appearance, type Palette, type PaletteColour } from '~/lib/appearance'
import { AppearanceFormSchema } from '~/lib/schemas/appearance'

export const APPEARANCE_ACTION = '/settings/appearance'

const THEME_OPTIONS = [
  { value: 'system', label: 'System', help: 'Light or dark, as this device is set.' },
  { value: 'light', label: 'Light', help: '' },
  { value: 'dark', label: 'Dark', help: '' },
  { value: 'custom', label: 'Custom', help: 'Your own palette, below.' },
] as const

const COLOUR_LABELS: Record<PaletteColour, string> = {
  primary: 'Primary',
  secondary: 'Secondary',
  background: 'Background',
  surface: 'Surface (cards)',
  text: 'Text',
}

type RootData = { appearance?: Appearance | null; cspNonce?: string } | undefined

/**
 * The appearance settings (spec §3 "Appearance settings"; docs/settings-appearance-notifications.md),
 * on the user tab. Saving stores them on this device (a cookie the server applies on the first
 * paint) and as the account's default; it works without JavaScript, and with it the preview
 * follows every pick. `lastResult` is the refused submission, when /settings/appearance shows it.
 */
export function AppearanceCard({ lastResult }: { lastResult?: SubmissionResult<string[]> | undefined }) {
  const root = useRouteLoaderData('root') as RootData
  const current = root?.appearance ?? DEFAULT_APPEARANCE
  const [live, setLive] = useState<Palette | null>(null)
  const [form, fields] = useForm({
    id: 'appearance',
    lastResult,
    defaultValue: {
      theme: current.theme,
      highContrast: current.highContrast ? 'on' : undefined,
      useSystemTheme: current.useSystemTheme ? 'on' : undefined,
      ...current.customPalette,
    },
    defaultNoValidate: false,
    constraint: getZodConstraint(AppearanceFormSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: AppearanceFormSchema }),
  })

  function follow(event: FormEvent<HTMLFormElement>) {
    const values = new FormData(event.currentTarget)
    const baseMode = values.get('baseMode') === 'dark' ? 'dark' : 'light'
    const palette: Palette = { ...DEFAULT_PALETTE, baseMode }
    for (const name of PALETTE_COLOURS) {
      const value = values.get(name)
      if (isHexColour(value)) palette[name] = value.toUpperCase()
    }
    setLive(palette)
  }

  return (
    <Card className="p-5" id="appearance-settings">
      <h2 className="mb-1 text-lg font-semibold">Appearance</h2>
      <p className="mb-4 text-sm text-muted">Saved on this device, and as the default of your account for devices that have none yet.</p>
      <Form method="post" action={APPEARANCE_ACTION} {...getFormProps(form)} onChange={follow} onInput={follow} className="flex flex-col gap-5">
        <CsrfInput />
        <FormError id={form.errorId} errors={form.errors} />
        <fieldset className="flex flex-col gap-2">
          <legend className="mb-1 text-sm font-medium text-text">Theme</legend>
          <ErrorList id={fields.theme.errorId} errors={fields.theme.errors} />
          <div className="grid gap-2 sm:grid-cols-2">
            {THEME_OPTIONS.map((option) => {
              const { key, ...props } = getInputProps(fields.theme, { type: 'radio', value: option.value })
              return (
                <label key={key ?? option.value} className="flex cursor-pointer items-start gap-3 rounded-md border border-border-strong p-3 has-checked:border-primary">
                  <input {...props} id={`${fields.theme.id}-${option.value}`} className="mt-0.5 size-5 shrink-0 accent-primary" />
                  <span className="flex flex-col">
                    <span className="text-sm font-medium text-text">{option.label}</span>
                    {option.help ? <span className="text-sm text-muted">{option.help}</span> : null}
                  </span>
                </label>
              )
            })}
          </div>
        </fieldset>
        <CheckboxField
          label="High contrast"
          help="Black and white with strong outlines, in light or dark. It takes the place of a custom palette while it is on."
          inputProps={getInputProps(fields.highContrast, { type: 'checkbox' })}
          errors={fields.highContrast.errors}
        />
        <CheckboxField
          label="Use system theme"
          help="Follow this device: light or dark as it is set, and high contrast when it asks for more contrast. A custom palette then shows while the device is in the palette's base mode."
          inputProps={getInputProps(fields.useSystemTheme, { type: 'checkbox' })}
          errors={fields.useSystemTheme.errors}
        />
        <fieldset className="flex flex-col gap-3">
          <legend className="mb-1 text-sm font-medium text-text">Custom palette</legend>
          <p className="text-sm text-muted">Used when the theme is Custom.</p>
          <div className="flex flex-col gap-2">
            <span className="text-sm font-medium text-text" id="appearance-base-mode">
              Base mode
            </span>
            <ErrorList id={fields.baseMode.errorId} errors={fields.baseMode.errors} />
            <div role="radiogroup" aria-labelledby="appearance-base-mode" className="flex gap-4">
              {(['light', 'dark'] as const).map((mode) => {
                const { key, ...props } = getInputProps(fields.baseMode, { type: 'radio', value: mode })
                return (
                  <label key={key ?? mode} className="flex cursor-pointer items-center gap-2 text-sm text-text">
                    <input {...props} id={`${fields.baseMode.id}-${mode}`} className="size-5 accent-primary" />
                    {mode === 'light' ? 'Light' : 'Dark'}
                  </label>
                )
              })}
            </div>
          </div>
          <div className="grid grid-cols-2 gap-3 sm:grid-cols-5">
            {PALETTE_COLOURS.map((name) => {
              const field = fields[name]
              const { key, ...props } = getInputProps(field, { type: 'color' })
              return (
                <div key={key ?? name} className="flex flex-col gap-1.5">
                  <label htmlFor={field.id} className="text-sm font-medium text-text">
                    {COLOUR_LABELS[name]}
                  </label>
                  <ErrorList id={field.errorId} errors={field.errors} />
                  <input {...props} className="h-11 w-full cursor-pointer rounded-md border border-border-strong bg-surface p-1" />
                  <span className="text-xs text-muted">Default {DEFAULT_PALETTE[name]}</span>
                </div>
              )
            })}
          </div>
        </fieldset>
        <AppearancePreview saved={current.customPalette} live={live} nonce={root?.cspNonce} />
        <SubmitButton intent="save" action={APPEARANCE_ACTION} pendingLabel="Saving…" className="self-start">
          Save appearance
        </SubmitButton>
      </Form>
      <ConfirmDialog
        className="mt-4"
        triggerLabel="Reset to defaults…"
        title="Reset the appearance to its defaults?"
        confirmLabel="Yes, reset"
        pendingLabel="Resetting…"
        action={APPEARANCE_ACTION}
        intent="reset"
        tone="primary"
      >
        The theme follows this device again, high contrast is off and the custom palette goes back to its default colours, here and for your account.
      </ConfirmDialog>
    </Card>
  )
}
