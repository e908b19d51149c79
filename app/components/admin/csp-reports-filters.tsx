import { Form } from 'react-router'
import { Button } from '~/components/ui/button'
import { Field } from '~/components/ui/field'
import { SelectField } from '~/components/ui/select-field'
import { cspReportsApiQuery, type CspReportsQuery } from '~/lib/admin/csp-reports'

/** The filters: a plain GET form, so they live in the address and work without JavaScript. */
export function CspReportsFilters({ query, errors }: { query: CspReportsQuery; errors: Record<string, string[]> }) {
  return (
    <Form
      method="get"
      action="/admin/security/csp-reports"
      aria-label="Filter CSP reports"
      key={cspReportsApiQuery(query).toString()}
      className="grid gap-3 sm:grid-cols-2 lg:grid-cols-[2fr_1fr_1fr_auto] lg:items-end"
    >
      <Field
        label="Directive"
        errors={errors.directive}
        inputProps={{ name: 'directive', id: 'csp-directive', type: 'search', defaultValue: query.directive ?? '', maxLength: 64, placeholder: 'e.g. script-src-elem' }}
      />
      <Field label="Since" errors={errors.since} inputProps={{ name: 'since', id: 'csp-since', type: 'date', defaultValue: query.since ?? '' }} />
      <SelectField
        label="Disposition"
        errors={errors.disposition}
        selectProps={{ name: 'disposition', id: 'csp-disposition', defaultValue: query.disposition ?? '' }}
        options={[
          { value: '', label: 'Blocked or reported' },
          { value: 'enforce', label: 'Blocked (enforce)' },
          { value: 'report', label: 'Reported only' },
        ]}
      />
      <Button type="submit" variant="secondary">
        Show reports
      </Button>
    </Form>
  )
}
