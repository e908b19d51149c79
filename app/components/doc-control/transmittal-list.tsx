import { Form, Link } from 'react-router'
import { Button } from '~/components/ui/button'
import { DataTable } from '~/components/ui/data-table'
import { EmptyState } from '~/components/ui/empty-state'
import { SelectField } from '~/components/ui/select-field'
import type { Transmittal, TransmittalStatus } from '~/lib/doc-control/types'
import { formatDateTime } from '~/lib/format'
import { purposeLabel, TRANSMITTAL_STATUS_OPTIONS, TransmittalStatusBadge } from './transmittal-labels'
import { transmittalPage, wizardPage } from './transmittal-paths'

/** Acknowledged by x of y recipients: what a sender looks for first. */
export function acknowledgedCount(transmittal: Pick<Transmittal, 'recipients'>): { done: number; all: number } {
  const done = transmittal.recipients.filter((recipient) => recipient.status === 'acknowledged' || recipient.status === 'responded').length
  return { done, all: transmittal.recipients.length }
}

/** The status filter of the list: a GET form, the project kept, a new filter starts at page 1. */
export function TransmittalFilter({ projectId, status }: { projectId: string; status: TransmittalStatus | null }) {
  return (
    <Form method="get" action="/doc-control/transmittals" aria-label="Filter transmittals" key={status ?? ''} className="flex flex-col gap-3 sm:flex-row sm:items-end">
      <input type="hidden" name="projectId" value={projectId} />
      <SelectField
        label="Status"
        className="sm:min-w-56"
        selectProps={{ name: 'status', id: 'transmittals-status', defaultValue: status ?? '' }}
        placeholder="Any status"
        options={TRANSMITTAL_STATUS_OPTIONS}
      />
      <Button type="submit" variant="secondary">
        Filter
      </Button>
    </Form>
  )
}

export function TransmittalList({ items, locale, page, hasNext, filtered }: { items: readonly Transmittal[]; locale: string; page: number; hasNext: boolean; filtered: boolean }) {
  return (
    <DataTable
      caption="Transmittals, newest first"
      columns={[
        {
          key: 'number',
          header: 'Number',
          rowHeader: true,
          cell: (t: Transmittal) => (
            <Link
              to={t.status === 'draft' ? wizardPage(t.projectId, { transmittalId: t.id }) : transmittalPage(t.id, t.projectId)}
              className="font-mono whitespace-nowrap text-primary-strong underline underline-offset-2"
            >
              {t.number}
            </Link>
          ),
        },
        { key: 'subject', header: 'Subject', cell: (t) => <span className="break-words">{t.subject || <span className="text-muted">No subject yet</span>}</span> },
        { key: 'purpose', header: 'Purpose', cell: (t) => purposeLabel(t.purpose), hideOnMobile: true },
        { key: 'status', header: 'Status', cell: (t) => <TransmittalStatusBadge status={t.status} /> },
        { key: 'sent', header: 'Sent', cell: (t) => (t.sentAt ? formatDateTime(t.sentAt, locale) : <span className="text-muted">Not sent</span>), hideOnMobile: true },
        {
          key: 'acknowledged',
          header: 'Acknowledged',
          align: 'end',
          cell: (t) => {
            if (t.status === 'draft') return <span className="text-muted">–</span>
            const { done, all } = acknowledgedCount(t)
            return (
              <span className="whitespace-nowrap">
                {done}/{all}
                <span className="sr-only"> recipients acknowledged</span>
              </span>
            )
          },
        },
      ]}
      rows={items}
      rowKey={(t) => t.id}
      emptyState={
        <EmptyState heading={filtered ? 'No transmittals with this status.' : 'No transmittals yet.'} headingLevel={2}>
          {filtered ? 'Try another status, or any status.' : 'Documents issued with “Issue documents” are listed here.'}
        </EmptyState>
      }
      pagination={{
        previous: page > 1 ? { page: String(page - 1) } : null,
        next: hasNext ? { page: String(page + 1) } : null,
        summary: `Page ${page}`,
        label: 'Pages of transmittals',
      }}
    />
  )
}
