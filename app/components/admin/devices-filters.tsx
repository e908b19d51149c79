import { Form, Link } from 'react-router'
import { Button } from '~/components/ui/button'
import { CheckboxField } from '~/components/ui/checkbox-field'
import { SelectField } from '~/components/ui/select-field'
import type { DevicesQuery } from '~/lib/admin/devices'

export type Person = { id: string; name: string; email: string }

/** The list's filters: a GET form, so they live in the URL and work without JavaScript. */
export function DevicesFilters({ query, platforms, people }: { query: DevicesQuery; platforms: string[]; people: Person[] }) {
  const platformChoices = [...new Set([...platforms, ...(query.platform ? [query.platform] : [])])]
  const chosenKnown = query.userId === null || people.some((p) => p.id === query.userId)
  return (
    <Form method="get" className="mb-6 flex flex-wrap items-end gap-4" aria-label="Filter devices">
      <SelectField
        label="Person"
        className="min-w-56"
        selectProps={{ name: 'userId', defaultValue: query.userId ?? '' }}
        placeholder="Everyone"
        options={[...people.map((p) => ({ value: p.id, label: `${p.name} (${p.email})` })), ...(chosenKnown ? [] : [{ value: query.userId ?? '', label: 'The person chosen' }])]}
      />
      <SelectField
        label="Platform"
        className="min-w-40"
        selectProps={{ name: 'platform', defaultValue: query.platform ?? '' }}
        placeholder="Any platform"
        options={platformChoices.map((p) => ({ value: p, label: p }))}
      />
      <CheckboxField label="Include revoked devices" className="pb-2" inputProps={{ name: 'includeRevoked', value: 'true', defaultChecked: query.includeRevoked }} />
      <div className="flex items-center gap-3">
        <Button type="submit" variant="secondary">
          Show devices
        </Button>
        {query.userId || query.platform || query.includeRevoked ? (
          <Link to="/admin/devices" className="text-sm text-primary-strong underline underline-offset-2">
            Clear filters
          </Link>
        ) : null}
      </div>
    </Form>
  )
}
