import type { SubmissionResult } from '@conform-to/react'
import type { KeptPermissions } from '~/components/documents/document-action'
import { Form } from 'react-router'
import { Button } from '~/components/ui/button'
import { CsrfInput } from '~/components/ui/csrf-input'
import { FormError } from '~/components/ui/form-error'
import { SelectField } from '~/components/ui/select-field'
import { SubmitButton } from '~/components/ui/submit-button'
import { ROLE_KEY_LABELS } from '~/lib/auth/role'
import { PERMISSION_LABELS } from '~/lib/documents/rules'
import { PERMISSION_LEVELS, type PermissionEntry, type PermissionLevel, type Permissions } from '~/lib/documents/types'
import type { Member } from '~/lib/reporting/types'
import { RevisionInput } from '~/components/ui/revision-input'

/** How a permission entry travels in the form: `user:<id>` or `role:<key>`. */
export function entryKey(entry: Pick<PermissionEntry, 'subjectKind' | 'subject'>): string {
  return `${entry.subjectKind}:${entry.subject}`
}

const LEVEL_OPTIONS = PERMISSION_LEVELS.map((level) => ({ value: level, label: PERMISSION_LABELS[level] }))
/** Roles that take entries: administrators always manage (docs/documents.md "Permissions"). */
const ROLE_SUBJECTS = (['read-write', 'read-only'] as const).map((key) => ({ key, label: `Everyone with ${ROLE_KEY_LABELS[key]}` }))

/** The kept entries with their names: from the entries now, the members, or the roles. */
function keptEntries(kept: KeptPermissions, permissions: Permissions, members: readonly Member[]): PermissionEntry[] {
  const known = new Map(permissions.entries.map((entry) => [entryKey(entry), entry]))
  return kept.entries.flatMap(({ key, level }) => {
    const at = key.indexOf(':')
    const subjectKind = key.slice(0, at)
    const subject = key.slice(at + 1)
    if ((subjectKind !== 'user' && subjectKind !== 'role') || !(PERMISSION_LEVELS as readonly string[]).includes(level)) return []
    const subjectName =
      known.get(key)?.subjectName ??
      (subjectKind === 'user' ? members.find((m) => m.userId === subject)?.displayName : ROLE_KEY_LABELS[subject as keyof typeof ROLE_KEY_LABELS]) ??
      subject
    return [{ subjectKind, subject, subjectName, level: level as PermissionLevel }]
  })
}

function subjectLabel(entry: PermissionEntry): string {
  return entry.subjectKind === 'role' ? `Everyone with ${entry.subjectName}` : entry.subjectName
}

/**
 * Who may do what with this document (intent `permissions`, manage only): the entries set on it,
 * each with its level, a Remove button, and a person or role to add; below, what applies from
 * above when nothing is set here. One form, so it works without JavaScript: Remove and Add save
 * the level changes made beside them too. PUT replaces the entries of the document, folder or
 * project the permissions are of (`permissions.target`).
 */
export function DocumentPermissionsForm({
  permissions,
  members,
  lastResult,
  revision,
  kept,
}: {
  permissions: Permissions
  members: readonly Member[]
  lastResult: SubmissionResult<string[]> | undefined
  /** The revision this form saves against (expectedRevision): the loaded one, or the current one after a conflict. */
  revision?: number | undefined
  /** After a conflict: the entries, levels and addition as the user left them, shown instead of the saved ones. */
  kept?: KeptPermissions | undefined
}) {
  const entries = kept ? keptEntries(kept, permissions, members) : permissions.entries
  const taken = new Set(entries.map(entryKey))
  const formErrors = lastResult?.error ? Object.values(lastResult.error).flatMap((messages) => messages ?? []) : null
  return (
    <Form method="post" aria-label="Permissions" className="flex flex-col gap-4">
      <CsrfInput />
      <input type="hidden" name="intent" value="permissions" />
      <RevisionInput revision={revision ?? permissions.revision} />
      <FormError errors={formErrors} />
      {entries.length === 0 ? (
        <p className="text-sm text-muted">Nothing is set on this {permissions.target}: what applies from above decides.</p>
      ) : (
        <ul aria-label={`Set on this ${permissions.target}`} className="flex flex-col gap-3">
          {entries.map((entry) => {
            const key = entryKey(entry)
            return (
              <li key={key} className="flex flex-col gap-2 rounded-md border border-border p-3 sm:flex-row sm:items-end">
                <input type="hidden" name="entry" value={key} />
                <SelectField
                  className="min-w-0 flex-1"
                  label={subjectLabel(entry)}
                  selectProps={{ name: `level:${key}`, id: `permission-${key}`, defaultValue: entry.level }}
                  options={LEVEL_OPTIONS}
                />
                <Button type="submit" name="remove" value={key} variant="secondary" aria-label={`Remove ${subjectLabel(entry)}`}>
                  Remove
                </Button>
              </li>
            )
          })}
        </ul>
      )}
      <fieldset className="flex flex-col gap-3 rounded-md border border-border p-3">
        <legend className="px-1 text-sm font-medium text-text">Add a person or a role</legend>
        <div className="grid gap-3 sm:grid-cols-2">
          <SelectField label="Person or role" selectProps={{ name: 'addSubject', id: 'permission-add-subject', defaultValue: kept?.addSubject ?? '' }} placeholder="Choose a person or role">
            <optgroup label="People">
              {members
                .filter((m) => !taken.has(`user:${m.userId}`))
                .map((m) => (
                  <option key={m.userId} value={`user:${m.userId}`}>
                    {m.displayName} ({m.email})
                  </option>
                ))}
            </optgroup>
            <optgroup label="Roles">
              {ROLE_SUBJECTS.filter((r) => !taken.has(`role:${r.key}`)).map((r) => (
                <option key={r.key} value={`role:${r.key}`}>
                  {r.label}
                </option>
              ))}
            </optgroup>
          </SelectField>
          <SelectField label="Level" selectProps={{ name: 'addLevel', id: 'permission-add-level', defaultValue: kept?.addLevel || 'view' }} options={LEVEL_OPTIONS} />
        </div>
      </fieldset>
      <div>
        <SubmitButton intent="permissions" pendingLabel="Saving…" variant="secondary">
          Save permissions
        </SubmitButton>
      </div>
      {permissions.inherited.length > 0 ? (
        <div className="text-sm">
          <h3 className="font-medium text-text">From above, when nothing is set here</h3>
          <ul className="mt-2 flex flex-col gap-1 text-muted">
            {permissions.inherited.map((entry) => (
              <li key={entryKey(entry)}>
                {subjectLabel(entry)}: <span className="font-medium text-text">{PERMISSION_LABELS[entry.level]}</span>
              </li>
            ))}
          </ul>
          <p className="mt-2 text-muted">Administrators always manage.</p>
        </div>
      ) : null}
    </Form>
  )
}
