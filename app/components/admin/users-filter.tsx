import { Form, Link } from 'react-router'
import { Button } from '~/components/ui/button'
import { Field } from '~/components/ui/field'
import { SelectField } from '~/components/ui/select-field'
import { MEMBERSHIP_STATUSES, ROLE_OPTIONS } from '~/lib/admin/users'

export type UsersFilter = { q: string; role: string; status: string }

/** The list's filters: a GET form, so they live in the URL and work without JavaScript; applying one starts from the first page. */
export function UsersFilterForm({ filter }: { filter: UsersFilter }) {
  const active = filter.q !== '' || filter.role !== '' || filter.status !== ''
  return (
    <Form method="get" role="search" aria-label="Find members" className="grid gap-4 sm:grid-cols-[minmax(0,2fr)_minmax(0,1fr)_minmax(0,1fr)_auto] sm:items-end">
      <Field label="Search" inputProps={{ name: 'q', type: 'search', defaultValue: filter.q, placeholder: 'Name or e-mail', autoComplete: 'off', spellCheck: false }} />
      <SelectField label="Role" selectProps={{ name: 'role', defaultValue: filter.role }} options={ROLE_OPTIONS} placeholder="Any role" />
      <SelectField
        label="Status"
        selectProps={{ name: 'status', defaultValue: filter.status }}
        options={MEMBERSHIP_STATUSES.map((s) => ({ value: s, label: s }))}
        placeholder="Any status"
      />
      <div className="flex items-center gap-3">
        <Button type="submit" variant="secondary">
          Apply
        </Button>
        {active ? (
          <Link to="." className="text-sm text-primary-strong underline underline-offset-2">
            Clear
          </Link>
        ) : null}
      </div>
    </Form>
  )
}
