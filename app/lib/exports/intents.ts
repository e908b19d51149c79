import type { ExportJobKind } from './types'

/** The form field and intent a screen's action reads (app/lib/exports/start-export.server.ts; the form: app/components/exports/background-export-form.tsx). */
export const EXPORT_JOB_INTENT = 'export-job'

/** The intent of the button that starts a job of `kind`, in a form that offers several formats. */
export function exportJobIntent(kind: ExportJobKind): string {
  return `${EXPORT_JOB_INTENT}:${kind}`
}

/** The kind a submitted intent asks for, among those the screen offers; undefined for any other intent. */
export function exportJobKindOf<K extends ExportJobKind>(intent: string, offered: readonly K[]): K | undefined {
  return offered.find((kind) => intent === exportJobIntent(kind))
}
