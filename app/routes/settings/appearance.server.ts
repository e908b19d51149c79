import { parseWithZod } from '@conform-to/zod/v4'
import { data, redirect } from 'react-router'
import { DEFAULT_APPEARANCE, type Appearance } from '~/lib/appearance'
import { setDeviceAppearance } from '~/lib/appearance.server'
import type { ApiClient } from '~/lib/api/types'
import { setFlash } from '~/lib/flash.server'
import { failureStatus, formMessageFor, replyWithApiError } from '~/lib/forms'
import { AppearanceFormSchema } from '~/lib/schemas/appearance'

/** Where the appearance form lives; a saved form goes back there. */
export const APPEARANCE_HOME = '/settings/user#appearance-settings'

/** "Save appearance": this device's cookie and the account's default, then back to the user tab. */
export async function saveAppearance(api: ApiClient, formData: FormData, request: Request, headers: Headers) {
  const submission = parseWithZod(formData, { schema: AppearanceFormSchema })
  if (submission.status !== 'success') return data({ result: submission.reply() }, { status: 400, headers })
  const { theme, highContrast, useSystemTheme, ...customPalette } = submission.value
  const appearance: Appearance = { theme, highContrast: highContrast ?? false, useSystemTheme: useSystemTheme ?? false, customPalette }
  const saved = await api.PATCH('/api/settings/appearance', { body: appearance })
  if (!saved.ok) return data({ result: replyWithApiError(submission, saved.error) }, { status: failureStatus(saved.error), headers })
  setDeviceAppearance(headers, request, saved.data.appearance)
  const failing = saved.data.contrast.filter((check) => !check.ok)
  await setFlash(
    headers,
    failing.length > 0
      ? {
          tone: 'warning',
          message: `Appearance saved. Some colours of the custom palette are below WCAG AA (4.5:1): ${failing.map((c) => `${c.label.toLowerCase()} ${c.ratio.toFixed(2)}:1`).join(', ')}.`,
        }
      : { tone: 'success', message: 'Appearance saved.' },
  )
  throw redirect(APPEARANCE_HOME, { headers })
}

/** "Reset to defaults": the same on this device and for the account. */
export async function resetAppearance(api: ApiClient, request: Request, headers: Headers) {
  const saved = await api.PATCH('/api/settings/appearance', { body: DEFAULT_APPEARANCE })
  if (!saved.ok) {
    await setFlash(headers, { tone: 'critical', message: formMessageFor(saved.error) })
    throw redirect(APPEARANCE_HOME, { headers })
  }
  setDeviceAppearance(headers, request, saved.data.appearance)
  await setFlash(headers, { tone: 'success', message: 'Appearance reset to the defaults.' })
  throw redirect(APPEARANCE_HOME, { headers })
}
