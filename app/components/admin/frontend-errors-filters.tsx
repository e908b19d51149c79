import { Form } from 'react-router'
import { Button } from '~/components/ui/button'
import { Field } from '~/components/ui/field'
import { type FrontendErrorFilters, frontendErrorQuery } from '~/lib/admin/frontend-errors'
import { FRONTEND_ERROR_SEARCH_MAX, VISITOR_FILTER_MAX } from '~/lib/schemas/admin-frontend-errors'

type FieldErrors = Record<string, string[]>

/** The error groups' filters: a plain GET form, so they live in the address and work without JavaScript. */
export function FrontendErrorsFilters({ filters, errors }: { filters: FrontendErrorFilters; errors: FieldErrors }) {
  return (
    <Form
      method="get"
      action="/admin/frontend-errors"
      aria-label="Filter frontend errors"
      key={frontendErrorQuery(filters).toString()}
      className="grid gap-3 sm:grid-cols-2 lg:grid-cols-[2fr_1fr_2fr_auto] lg:items-end"
    >
      <Field
        label="Search"
        errors={errors.q}
        inputProps={{ name: 'q', id: 'fe-q', type: 'search', defaultValue: filters.q, maxLength: FRONTEND_ERROR_SEARCH_MAX, placeholder: 'Message, page or release' }}
      />
      <Field label="Since" errors={errors.since} inputProps={{ name: 'since', id: 'fe-since', type: 'date', defaultValue: filters.since.slice(0, 10) }} />
      <Field
        label="Visitor or correlation id"
        errors={errors.visitor}
        inputProps={{ name: 'visitor', id: 'fe-visitor', type: 'search', defaultValue: filters.visitor, maxLength: VISITOR_FILTER_MAX, spellCheck: false }}
      />
      <Button type="submit" variant="secondary">
        Show errors
      </Button>
    </Form>
  )
}
