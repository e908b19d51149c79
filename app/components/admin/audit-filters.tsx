import { Form, Link } from 'react-router'
import { Button, buttonClasses } from '~/components/ui/button'
import { Field } from '~/components/ui/field'
import { SelectField } from '~/components/ui/select-field'
import { type AuditFilterValues, auditHref, auditQuery, hasFilters } from '~/lib/admin/audit'
import { auditActionLabel } from '~/lib/admin/audit-words'

type FieldErrors = Record<string, string[]>

/** The areas an action prefix filter offers, in the order the sidebar has them. */
const PREFIXES = [
  { value: 'auth.', label: 'Sign-in and security (auth.*)' },
  { value: 'admin.', label: 'Administration (admin.*)' },
  { value: 'documents.', label: 'Documents (documents.*)' },
  { value: 'doc-control.', label: 'Document control (doc-control.*)' },
]

/**
 * The filters, a plain GET form: they live in the address, so a filtered page can be bookmarked
 * or shared and works without JavaScript. Filters set from a row (an actor, a target) ride along
 * as hidden fields and are named above the form with a way to drop them.
 */
export function AuditFilters({ filters, actions, errors }: { filters: AuditFilterValues; actions: readonly string[]; errors: FieldErrors }) {
  const known = new Set([...PREFIXES.map((p) => p.value), ...actions])
  const pinned = [
    filters.actorUserId ? { label: 'Only entries by one person', without: { ...filters, actorUserId: '' } } : null,
    filters.targetType || filters.targetId
      ? { label: `Only entries about ${[filters.targetType, filters.targetId].filter(Boolean).join(' ')}`, without: { ...filters, targetType: '', targetId: '' } }
      : null,
  ].filter((pin) => pin !== null)
  return (
    <div className="flex flex-col gap-3">
      {pinned.length > 0 ? (
        <ul className="flex flex-wrap gap-2 text-sm">
          {pinned.map((pin) => (
            <li key={pin.label} className="flex items-center gap-2 rounded-md border border-border bg-surface-muted px-3 py-1">
              <span>{pin.label}</span>
              <Link to={auditHref(pin.without)} className="text-primary-strong underline underline-offset-2">
                Show all<span className="sr-only"> ({pin.label.toLowerCase()})</span>
              </Link>
            </li>
          ))}
        </ul>
      ) : null}
      {/* Remounted when the address changes, so the fields show what is applied. */}
      <Form
        method="get"
        action="/admin/audit"
        aria-label="Filter the audit log"
        key={auditQuery(filters).toString()}
        className="grid gap-3 sm:grid-cols-2 lg:grid-cols-[2fr_2fr_1fr_1fr_auto] lg:items-end"
      >
        {filters.actorUserId ? <input type="hidden" name="actorUserId" value={filters.actorUserId} /> : null}
        {filters.targetType ? <input type="hidden" name="targetType" value={filters.targetType} /> : null}
        {filters.targetId ? <input type="hidden" name="targetId" value={filters.targetId} /> : null}
        <Field
          label="Search"
          errors={errors.q}
          inputProps={{ name: 'q', id: 'audit-q', type: 'search', defaultValue: filters.q, maxLength: 200, placeholder: 'Action, target, person or e-mail' }}
        />
        <SelectField label="Action" errors={errors.action} selectProps={{ name: 'action', id: 'audit-action', defaultValue: filters.action }} placeholder="Any action">
          <optgroup label="Areas">
            {PREFIXES.map((p) => (
              <option key={p.value} value={p.value}>
                {p.label}
              </option>
            ))}
          </optgroup>
          {actions.length > 0 ? (
            <optgroup label="Actions">
              {actions.map((action) => (
                <option key={action} value={action}>
                  {auditActionLabel(action)}
                </option>
              ))}
            </optgroup>
          ) : null}
          {filters.action && !known.has(filters.action) ? <option value={filters.action}>{filters.action}</option> : null}
        </SelectField>
        <Field label="From" errors={errors.from} inputProps={{ name: 'from', id: 'audit-from', type: 'date', defaultValue: filters.from }} />
        <Field label="To" errors={errors.to} inputProps={{ name: 'to', id: 'audit-to', type: 'date', defaultValue: filters.to }} />
        <div className="flex gap-2">
          <Button type="submit" variant="secondary">
            Filter
          </Button>
          {hasFilters(filters) ? (
            <Link to="/admin/audit" className={buttonClasses({ variant: 'plain' })}>
              Clear
            </Link>
          ) : null}
        </div>
      </Form>
    </div>
  )
}
