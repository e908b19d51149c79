import { Form } from 'react-router'
import { Banner } from '~/components/ui/banner'
import { CsrfInput } from '~/components/ui/csrf-input'
import { Field } from '~/components/ui/field'
import { SubmitButton } from '~/components/ui/submit-button'
import type { DeliverableImport } from '~/lib/doc-control/types'

/**
 * "Import CSV" (intent `import-csv`): a file upload that works without JavaScript. The columns it
 * reads are those the export writes, so an exported file, edited, comes back in.
 */
export function DeliverablesImportForm({ error }: { error: string | undefined }) {
  return (
    <Form method="post" encType="multipart/form-data" aria-label="Import deliverables" className="flex flex-col gap-4">
      <CsrfInput />
      <Field
        label="CSV file"
        help="The first line names the columns: Number and Title, and optionally Responsible party (its code or name) and one “Milestone: Stage 4” column per milestone with dates as YYYY-MM-DD. A known number is updated, a new one added."
        inputProps={{ type: 'file', name: 'file', accept: '.csv,text/csv', required: true, autoFocus: error !== undefined }}
        errors={error ? [error] : undefined}
      />
      <SubmitButton intent="import-csv" variant="secondary" pendingLabel="Importing…" className="self-start">
        Import CSV
      </SubmitButton>
    </Form>
  )
}

/** What an import with refused lines did: the good lines are in, each refused one is named. */
export function DeliverablesImportReport({ report }: { report: DeliverableImport }) {
  return (
    <Banner
      tone="warning"
      title={`Imported ${report.created} new and ${report.updated} updated; ${report.errors.length} line${report.errors.length === 1 ? '' : 's'} not imported`}
    >
      <ul aria-label="Lines not imported" className="mt-2 list-disc pl-5">
        {report.errors.map((e) => (
          <li key={`${e.line}-${e.message}`}>
            Line {e.line}: {e.message}
          </li>
        ))}
      </ul>
    </Banner>
  )
}
