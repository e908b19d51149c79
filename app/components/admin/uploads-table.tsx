import { Form } from 'react-router'
import { Badge, type BadgeTone } from '~/components/ui/badge'
import { Button } from '~/components/ui/button'
import { ConfirmDialog } from '~/components/ui/confirm-dialog'
import { DataTable } from '~/components/ui/data-table'
import { EmptyState } from '~/components/ui/empty-state'
import { SelectField } from '~/components/ui/select-field'
import {
  type AdminUpload,
  type AdminUploadPurpose,
  type AdminUploadState,
  formatBytes,
  UPLOAD_PURPOSE_LABELS,
  UPLOAD_PURPOSES,
  UPLOAD_STATE_LABELS,
  UPLOAD_STATES,
} from '~/lib/admin/uploads'
import { formatDateTime } from '~/lib/format'

const STATE_TONES: Record<AdminUploadState, BadgeTone> = {
  open: 'info',
  completing: 'info',
  completed: 'success',
  aborted: 'neutral',
  expired: 'neutral',
  failed: 'critical',
}

/** The filters, in the URL: a GET form that works without JavaScript. */
export function UploadsFilter({ state, purpose }: { state: AdminUploadState | null; purpose: AdminUploadPurpose | null }) {
  return (
    <Form method="get" action="/admin/uploads" aria-label="Filter uploads" className="flex flex-col gap-3 sm:flex-row sm:items-end" key={`${state}-${purpose}`}>
      <SelectField
        label="State"
        selectProps={{ name: 'state', id: 'uploads-state', defaultValue: state ?? '' }}
        options={[{ value: '', label: 'Any state' }, ...UPLOAD_STATES.map((s) => ({ value: s, label: UPLOAD_STATE_LABELS[s] }))]}
      />
      <SelectField
        label="Kind"
        selectProps={{ name: 'purpose', id: 'uploads-purpose', defaultValue: purpose ?? '' }}
        options={[{ value: '', label: 'Any kind' }, ...UPLOAD_PURPOSES.map((p) => ({ value: p, label: UPLOAD_PURPOSE_LABELS[p] }))]}
      />
      <Button type="submit" variant="secondary">
        Show uploads
      </Button>
    </Form>
  )
}

function Progress({ upload, locale }: { upload: AdminUpload; locale: string }) {
  const percent = upload.size > 0 ? Math.floor((upload.offset / upload.size) * 100) : 0
  return (
    <span className="whitespace-nowrap">
      {formatBytes(upload.offset, locale)} of {formatBytes(upload.size, locale)} ({percent}%)
    </span>
  )
}

/** The sessions, newest first; an open one can be aborted after a confirmation (a disclosure, so without JavaScript too). */
export function UploadsTable({
  uploads,
  locale,
  next,
  previous,
  filtered,
}: {
  uploads: readonly AdminUpload[]
  locale: string
  next: string | null
  previous: boolean
  filtered: boolean
}) {
  return (
    <DataTable
      caption="Upload sessions"
      captionHidden
      rows={uploads}
      rowKey={(u) => u.id}
      emptyState={
        <EmptyState heading={filtered ? 'No uploads match' : 'No uploads yet'} headingLevel={3}>
          {filtered ? 'Try another state or kind.' : 'Photos, document revisions and support attachments appear here while and after they upload.'}
        </EmptyState>
      }
      // Keyset paging goes forward; the screen offers "First page" instead of a previous link.
      pagination={{ next: next ? { after: next } : null, previous: null, summary: previous ? 'A later page' : undefined, label: 'Upload pages' }}
      columns={[
        { key: 'file', header: 'File', rowHeader: true, cell: (u) => <span className="break-all">{u.fileName}</span> },
        {
          key: 'state',
          header: 'State',
          cell: (u) => (
            <span className="flex flex-wrap gap-1">
              <Badge tone={STATE_TONES[u.state]}>{UPLOAD_STATE_LABELS[u.state]}</Badge>
              {u.stuck ? <Badge tone="warning">Stuck</Badge> : null}
            </span>
          ),
        },
        { key: 'progress', header: 'Received', cell: (u) => <Progress upload={u} locale={locale} /> },
        { key: 'who', header: 'Who', cell: (u) => u.who?.displayName ?? 'Removed user' },
        { key: 'kind', header: 'Kind', hideOnMobile: true, cell: (u) => UPLOAD_PURPOSE_LABELS[u.purpose] },
        { key: 'started', header: 'Started', hideOnMobile: true, cell: (u) => formatDateTime(u.createdAtUtc, locale) },
        {
          key: 'last',
          header: 'Last change',
          hideOnMobile: true,
          cell: (u) => (
            <>
              {formatDateTime(u.updatedAtUtc, locale)}
              {u.failureReason ? <span className="block text-xs text-critical">{u.failureReason}</span> : null}
            </>
          ),
        },
        {
          key: 'actions',
          header: <span className="sr-only">Actions</span>,
          cell: (u) =>
            u.state === 'open' ? (
              <ConfirmDialog
                triggerLabel={`Abort ${u.fileName}…`}
                title={`Abort the upload of ${u.fileName}?`}
                confirmLabel="Yes, abort upload"
                pendingLabel="Aborting…"
                intent="abort"
                fields={{ uploadId: u.id, fileName: u.fileName }}
              >
                The bytes received so far are deleted and {u.who?.displayName ?? 'its owner'} cannot send more; they have to start the upload again.
              </ConfirmDialog>
            ) : null,
        },
      ]}
    />
  )
}
