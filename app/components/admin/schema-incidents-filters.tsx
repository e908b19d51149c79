import { Form } from 'react-router'
import { Button } from '~/components/ui/button'
import { Field } from '~/components/ui/field'
import { SelectField } from '~/components/ui/select-field'
import { schemaIncidentsApiQuery, type SchemaIncidentsQuery } from '~/lib/admin/schema-incidents'

/** The filters: a plain GET form, so they live in the address and work without JavaScript. */
export function SchemaIncidentsFilters({ query, errors }: { query: SchemaIncidentsQuery; errors: Record<string, string[]> }) {
  return (
    <Form
      method="get"
      action="/admin/schema-incidents"
      aria-label="Filter schema incidents"
      key={schemaIncidentsApiQuery(query).toString()}
      className="grid gap-3 sm:grid-cols-2 lg:grid-cols-[2fr_1fr_1fr_1fr_auto] lg:items-end"
    >
      <Field
        label="Call"
        errors={errors.path}
        inputProps={{ name: 'path', id: 'incidents-path', type: 'search', defaultValue: query.path ?? '', maxLength: 200, placeholder: 'Part of a path, e.g. /api/items' }}
      />
      <Field label="Since" errors={errors.since} inputProps={{ name: 'since', id: 'incidents-since', type: 'date', defaultValue: query.since ?? '' }} />
      <SelectField
        label="Checked by"
        errors={errors.source}
        selectProps={{ name: 'source', id: 'incidents-source', defaultValue: query.source ?? '' }}
        options={[
          { value: '', label: 'Server or browser' },
          { value: 'server', label: 'Server' },
          { value: 'web', label: 'Browser' },
        ]}
      />
      <SelectField
        label="Calls of"
        errors={errors.scope}
        selectProps={{ name: 'scope', id: 'incidents-scope', defaultValue: query.scope }}
        options={[
          { value: 'organisation', label: 'This organisation' },
          { value: 'instance', label: 'Signed-out calls (whole server)' },
        ]}
      />
      <Button type="submit" variant="secondary">
        Show incidents
      </Button>
    </Form>
  )
}
