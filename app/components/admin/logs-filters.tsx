import { Form, Link } from 'react-router'
import { Button, buttonClasses } from '~/components/ui/button'
import { Field } from '~/components/ui/field'
import { SelectField } from '~/components/ui/select-field'
import {
  hasLogFilters,
  isFieldMoment,
  LOG_LEVELS,
  LOG_QUERY_MAX,
  LOG_SINCE_WINDOWS,
  LOG_PAGE_DEFAULT_LINES,
  LOG_TAIL_MAX_LINES,
  LOG_UNIT_LABELS,
  LOG_UNITS,
  type LogsPageQuery,
} from '~/lib/admin/logs'

type FieldErrors = Record<string, string[]>

/**
 * The filters, a plain GET form: they live in the address, so a filtered page can be refreshed,
 * bookmarked or shared, and works without JavaScript. From and To are a period in UTC, the zone
 * every time on the page is shown in (the browser writes the date and time in the reader's own
 * format); the loader sends them to the API as UTC date-times.
 */
export function LogsFilters({ query, errors }: { query: LogsPageQuery; errors: FieldErrors }) {
  const knownSince = LOG_SINCE_WINDOWS.some((w) => w.value === query.since)
  return (
    <Form
      method="get"
      action="/admin/logs"
      aria-label="Filter the log lines"
      // Remounted when the address changes, so the fields show what is applied.
      key={JSON.stringify(query)}
      className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4 lg:items-end"
    >
      <Field
        label="Search"
        className="sm:col-span-2"
        errors={errors.query}
        inputProps={{
          name: 'query',
          id: 'logs-query',
          type: 'search',
          defaultValue: query.query,
          maxLength: LOG_QUERY_MAX,
          placeholder: 'Correlation id, visitor id, path, text',
        }}
      />
      <SelectField label="Unit" errors={errors.unit} selectProps={{ name: 'unit', id: 'logs-unit', defaultValue: query.unit }} placeholder="Any unit">
        {LOG_UNITS.map((unit) => (
          <option key={unit} value={unit}>
            {LOG_UNIT_LABELS[unit]}
          </option>
        ))}
        {query.unit && !(LOG_UNITS as readonly string[]).includes(query.unit) ? <option value={query.unit}>{query.unit}</option> : null}
      </SelectField>
      <SelectField label="Level" errors={errors.level} selectProps={{ name: 'level', id: 'logs-level', defaultValue: query.level }} placeholder="Any level">
        {LOG_LEVELS.map((level) => (
          <option key={level} value={level}>
            {level} and above
          </option>
        ))}
        {query.level && !(LOG_LEVELS as readonly string[]).includes(query.level) ? <option value={query.level}>{query.level}</option> : null}
      </SelectField>
      <SelectField label="Since" errors={errors.since} selectProps={{ name: 'since', id: 'logs-since', defaultValue: query.since }} placeholder="Any time">
        {LOG_SINCE_WINDOWS.map((window) => (
          <option key={window.value} value={window.value}>
            {window.label}
          </option>
        ))}
        {query.since && !knownSince ? <option value={query.since}>{query.since}</option> : null}
      </SelectField>
      <MomentField name="from" label="From (UTC)" value={query.from} errors={errors.from} />
      <MomentField name="to" label="To (UTC)" value={query.to} errors={errors.to} />
      <Field
        label="Lines a page"
        errors={errors.lines}
        inputProps={{
          name: 'lines',
          id: 'logs-lines',
          type: 'number',
          inputMode: 'numeric',
          min: 1,
          max: LOG_TAIL_MAX_LINES,
          step: 1,
          defaultValue: query.lines,
          placeholder: String(LOG_PAGE_DEFAULT_LINES),
        }}
      />
      <div className="flex gap-2 sm:col-span-2 lg:col-span-4">
        <Button type="submit" variant="secondary">
          Filter
        </Button>
        {hasLogFilters(query) ? (
          <Link to="/admin/logs" className={buttonClasses({ variant: 'plain' })}>
            Clear
          </Link>
        ) : null}
      </div>
    </Form>
  )
}

/**
 * One end of the period. A value a date-and-time field cannot hold (hand-typed into an address, or
 * from a browser without that field) is shown as typed, in a text field, next to the API's error.
 */
function MomentField({ name, label, value, errors }: { name: 'from' | 'to'; label: string; value: string; errors: readonly string[] | undefined }) {
  const asField = value === '' || isFieldMoment(value)
  return (
    <Field
      label={label}
      errors={errors}
      inputProps={{
        name,
        id: `logs-${name}`,
        type: asField ? 'datetime-local' : 'text',
        defaultValue: value,
        // A value with seconds (from a link) must not fail the minute step the field has otherwise.
        step: asField && value.length > 'YYYY-MM-DDTHH:MM'.length ? 1 : undefined,
        placeholder: asField ? undefined : '2026-05-01T09:30',
      }}
    />
  )
}
