import { shownValue } from '~/components/admin/config-field'
import { ConfirmDialog } from '~/components/ui/confirm-dialog'
import { EmptyState } from '~/components/ui/empty-state'
import type { ConfigJsonSchema, ConfigVersion } from '~/lib/admin/config'
import { formatDateTime } from '~/lib/format'

/**
 * A category's saved versions, newest first: who saved each and when, what changed (secrets
 * masked by the API), and a Restore with a confirmation step (a disclosure holding the confirming
 * form, so it works without JavaScript).
 */
export function ConfigHistory({
  versions,
  currentVersion,
  schema,
  locale,
}: {
  versions: readonly ConfigVersion[] | null
  currentVersion: number
  schema: ConfigJsonSchema
  locale: string
}) {
  if (versions === null) return <p className="text-sm text-muted">The history could not be loaded just now. Reload the page to try again.</p>
  if (versions.length === 0) {
    return (
      <EmptyState heading="No saved versions yet" headingLevel={3}>
        Each save becomes a version here, and any version can be restored.
      </EmptyState>
    )
  }
  const ordered = [...versions].sort((a, b) => b.version - a.version)
  return (
    <ol aria-label="Saved versions" className="flex flex-col divide-y divide-border rounded-lg border border-border bg-surface">
      {ordered.map((entry) => (
        <li key={entry.version} className="flex flex-col gap-3 p-4">
          <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
            <h3 className="font-semibold text-text">
              Version {entry.version}
              {entry.version === currentVersion ? <span className="font-normal text-muted"> (current)</span> : null}
            </h3>
            <p className="text-sm text-muted">
              {formatDateTime(entry.changedAtUtc, locale)} by {entry.changedBy?.displayName ?? 'the system'}
              {entry.restoredFrom !== null ? `, restored from version ${entry.restoredFrom}` : ''}
            </p>
          </div>
          {entry.changes.length > 0 ? (
            <ul className="flex flex-col gap-1 text-sm">
              {entry.changes.map((change) => {
                const field = schema.properties[change.field]
                return (
                  <li key={change.field} className="break-words">
                    <span className="font-medium">{field?.title ?? change.field}</span>: {shownChange(field?.['x-secret'], field, change.before)} →{' '}
                    {shownChange(field?.['x-secret'], field, change.after)}
                  </li>
                )
              })}
            </ul>
          ) : (
            <p className="text-sm text-muted">No field changed.</p>
          )}
          {entry.version !== currentVersion ? (
            <ConfirmDialog
              triggerLabel={`Restore version ${entry.version}…`}
              title={`Restore version ${entry.version}?`}
              confirmLabel={`Yes, restore version ${entry.version}`}
              pendingLabel="Restoring…"
              intent="restore"
              fields={{ version: String(entry.version) }}
              tone="primary"
              className="self-start"
            >
              Its values become a new version ({currentVersion + 1}); the versions in between stay in this history. Secrets come back as they were then.
            </ConfirmDialog>
          ) : null}
        </li>
      ))}
    </ol>
  )
}

/** The API masks secrets already ("••••"); anything else in words. */
function shownChange(secret: boolean | undefined, field: Parameters<typeof shownValue>[0], value: unknown): string {
  if (secret) return typeof value === 'string' && value !== '' ? value : value === null || value === undefined ? '(not set)' : '••••'
  return shownValue(field, value)
}
