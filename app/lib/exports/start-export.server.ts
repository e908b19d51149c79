import { redirect } from 'react-router'
import type { ApiClient } from '~/lib/api/types'
import type { ExportJobKind } from './types'

/**
 * A screen's action for BackgroundExportForm (docs/exports.md "Large exports as a job"): starts
 * the export as the reader's job and goes to its progress page (following it: app/routes/export-job.tsx); the API's failure is the caller's
 * to show (`{ ok: false, error }`).
 */
export async function startBackgroundExport(
  api: ApiClient,
  headers: Headers,
  formData: FormData,
  request: { kind: ExportJobKind } & Record<string, string | undefined>,
) {
  const { kind, ...filters } = request
  const body = { kind, ...Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== undefined && value !== '')), notify: formData.get('notify') === 'on' }
  const started = await api.POST('/api/exports', { body, idempotencyKey: true })
  if (!started.ok) return started
  throw redirect(`/exports/${started.data.id}?follow=1`, { headers })
}
